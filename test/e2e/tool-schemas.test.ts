import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { maxBodyBytes } from '../../src/protocol/limits.ts';
import { maxQueryBytes } from '../../src/broker/mcp/args.ts';
import { isError, resultText, startStack, type Stack } from './stack-fixture.ts';

type JsonSchema = {
  type?: string;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  description?: string;
};

/** The schemas a real MCP client is shown, and what the tools do at their edges. */
describe('tool input schemas say exactly what the tools accept (real MCP client)', () => {
  let stack: Stack;
  let client: Client;
  let tools: { name: string; description?: string; inputSchema: JsonSchema }[];
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  before(async () => {
    stack = await startStack({ worlds: ['root'] });
    client = await stack.connect();
    tools = (await client.listTools()).tools as typeof tools;
  });
  after(() => stack.close());

  it('declares every numeric argument as an integer with the bounds its description states', () => {
    let integers = 0;
    for (const tool of tools) {
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        if (property.type === 'number') {
          // Only a real fraction may be a number, and it is bounded too (mark_doctor.similarity).
          assert.ok(property.minimum !== undefined && property.maximum !== undefined, `${tool.name}.${name} bounds`);
          assert.notEqual(
            property.minimum,
            Math.trunc(property.minimum),
            `${tool.name}.${name} is an integer argument`,
          );
          continue;
        }
        if (property.type !== 'integer') continue;
        integers += 1;
        const description = property.description ?? '';
        // A clamped argument takes any integer on its clamped side and says what such a value counts as.
        const raisedTo = /a smaller \w+ counts as (\d+)/.exec(description);
        const loweredTo = /a larger (?:\w+ counts|one) as (\d+)/.exec(description);
        if (raisedTo === null)
          assert.ok(property.minimum !== undefined && property.minimum >= 0, `${tool.name}.${name} minimum`);
        else assert.equal(property.minimum, Number.MIN_SAFE_INTEGER, `${tool.name}.${name} takes any smaller value`);
        const atMost = /at most (\d+)|1 to (\d+)/.exec(description);
        if (loweredTo !== null) {
          assert.equal(property.maximum, Number.MAX_SAFE_INTEGER, `${tool.name}.${name} takes any larger value`);
          assert.equal(Number(loweredTo[1]), Number(atMost?.[1] ?? atMost?.[2]), `${tool.name}.${name} clamp`);
        } else {
          assert.ok(property.maximum !== undefined, `${tool.name}.${name} maximum`);
          if (atMost !== null) assert.equal(property.maximum, Number(atMost[1] ?? atMost[2]), `${tool.name}.${name}`);
        }
      }
    }
    assert.ok(integers >= 8, `found ${integers} integer arguments`);
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema.properties ?? {}]));
    // Clamped as the Go broker clamps: a maximum here would have clients refuse what the tool takes.
    assert.deepEqual(byName.get('mark_lookup')?.limit, {
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'most rows to return (default 10, at most 1000: a larger limit counts as 1000, as the world does)',
    });
    assert.equal(byName.get('mark_search')?.limit?.maximum, 100);
    assert.equal(byName.get('mark_graph')?.depth?.type, 'integer');
    assert.equal(byName.get('mark_graph_publish')?.expected_version?.type, 'integer');
  });

  it('annotates every tool with what a call does, instead of leaving the MCP defaults (destructive, not idempotent, open world)', async () => {
    // MCP 2025-06-18 ToolAnnotations: a missing hint reads as its default, so a tool with readOnlyHint alone
    // read as destructive and open-world; an append (additive) looked as dangerous as a publish with retention.
    const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    // A second identical call stores nothing more: the same publish at the same expected_version is the earlier
    // write or a conflict, archiving an archived document answers ok; mark_append without expected_version appends again.
    const write = (destructiveHint: boolean, idempotentHint: boolean) => ({
      readOnlyHint: false,
      destructiveHint,
      idempotentHint,
      openWorldHint: false,
    });
    const expected: Record<string, Record<string, boolean>> = {
      mark_fetch: read,
      mark_explore: read,
      mark_list: read,
      mark_versions: read,
      mark_lookup: read,
      mark_lookup_all: read,
      // metadata.retention permanently deletes versions.
      mark_publish: write(true, true),
      mark_append: write(false, false),
      // Reversible: the history is kept and an empty publish brings the document back.
      mark_archive: write(false, true),
      mark_discover: read,
      mark_resolve: read,
      // It replaces the index document, and its metadata takes retention as mark_publish's does.
      mark_index: write(true, true),
      mark_backlinks: read,
      mark_graph: read,
      mark_graph_export: read,
      // Prunes the versions beyond its retention (default 20).
      mark_graph_publish: write(true, true),
      mark_worlds: read,
      mark_search: read,
      mark_doctor: read,
      mark_diff: read,
    };
    const listed = (await client.listTools()).tools;
    assert.deepEqual(Object.fromEntries(listed.map((tool) => [tool.name, tool.annotations])), expected);
  });

  it('every input schema compiles under Ajv strict mode (what strict schema checkers run)', () => {
    for (const tool of tools) {
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      assert.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name}`);
      assert.equal((tool.inputSchema as { type?: string }).type, 'object', tool.name);
    }
  });

  it('lists on_conflict as an enum and metadata as an object of string values', () => {
    const publish = tools.find((t) => t.name === 'mark_publish')!.inputSchema.properties!;
    assert.deepEqual(publish.on_conflict?.enum, ['merge', 'fail']);
    assert.equal(publish.metadata?.type, 'object');
    assert.equal(publish.metadata?.properties?.title?.type, 'string');
    assert.equal(publish.metadata?.properties?.importance?.type, 'string');
    assert.deepEqual(publish.metadata?.additionalProperties, { type: 'string' });
  });

  it('states Mark’s body limit, in the bytes the tools count, on mark_publish and mark_append and their body argument', () => {
    const limit = `${maxBodyBytes.toLocaleString('en')} bytes`;
    for (const name of ['mark_publish', 'mark_append']) {
      const tool = tools.find((t) => t.name === name)!;
      assert.ok(tool.description?.includes(limit), `${name} description states ${limit}`);
      assert.ok(tool.inputSchema.properties?.body?.description?.includes(limit), `${name}.body states ${limit}`);
    }
  });

  it('states the longest query, in the bytes the tools count, on every query argument, and refuses one byte more', async () => {
    // A query of any length reached every world, whose nearest-titles suggestion
    // cost seconds for a long one (test/security/nearest-titles-bounded.test.ts).
    const stated = `at most ${maxQueryBytes.toLocaleString('en')} bytes`;
    const withQuery = tools.filter((tool) => tool.inputSchema.properties?.query !== undefined).map((t) => t.name);
    assert.deepEqual(withQuery.sort(), ['mark_lookup', 'mark_lookup_all', 'mark_search']);
    for (const name of withQuery) {
      const query = tools.find((t) => t.name === name)!.inputSchema.properties!.query!;
      assert.equal(query.type, 'string', name);
      assert.ok(query.description?.includes(stated), `${name}.query states ${stated}`);
    }
    // Two-byte characters: the bound counts UTF-8 bytes, not characters.
    const longest = 'é'.repeat(maxQueryBytes / 2);
    const fits = await call('mark_search', { query: longest });
    assert.equal(isError(fits), false, resultText(fits));
    const refusal =
      `query is ${(maxQueryBytes + 1).toLocaleString('en')} bytes, longer than the ${maxQueryBytes.toLocaleString('en')} bytes a query may be; ` +
      'ask again with the words that matter most (a world searches at most 32 of them)';
    const args = { query: `${longest}x` };
    assert.equal(resultText(await call('mark_search', args)), refusal);
    assert.equal(resultText(await call('mark_lookup_all', args)), refusal);
    assert.equal(resultText(await call('mark_lookup', { url: 'mark://root/', ...args })), refusal);
  });

  it('refuses mistyped arguments and values below a bound with a sentence naming it, and clamps where Go clamps', async () => {
    const tooFew = await call('mark_lookup_all', { query: 'xx', limit: 0 });
    assert.equal(isError(tooFew), true);
    assert.equal(resultText(tooFew), 'limit must be at least 1');
    const many = await call('mark_lookup', { url: 'mark://root/', query: 'xx', limit: 5000 });
    assert.equal(isError(many), false, resultText(many));
    const fraction = await call('mark_graph', { url: 'mark://root/index.md', depth: 1.5 });
    assert.equal(resultText(fraction), 'depth must be an integer (got number 1.5)');
    const mode = await call('mark_publish', {
      url: 'mark://root/a.md',
      body: 'x',
      expected_version: 0,
      on_conflict: 'yolo',
    });
    assert.equal(resultText(mode), 'invalid on_conflict "yolo": expected "merge" or "fail"');
    const typed = await call('mark_publish', {
      url: 'mark://root/a.md',
      body: 'x',
      expected_version: 0,
      metadata: { importance: { value: 0.8 } },
    });
    assert.equal(isError(typed), true);
    assert.equal(resultText(typed), 'metadata.importance must be a string, e.g. "0.8" (got object)');
    const negative = await call('mark_publish', { url: 'mark://root/a.md', body: 'x', expected_version: -1 });
    assert.equal(resultText(negative), 'expected_version must be >= 0');
  });

  it('refuses an argument a tool does not take, naming it and the arguments the tool takes, instead of dropping it', async () => {
    // Before, unknown keys were dropped: mark_search's `worlds` (mark_doctor's name) searched every world, and
    // mark_list's `limit` (other tools' name for page_size) listed a whole page, each with no word of it.
    const search = await call('mark_search', { query: 'penguin', worlds: 'root' });
    assert.equal(isError(search), true);
    assert.equal(
      resultText(search),
      'unknown argument `worlds`; mark_search takes query, world, scope, filter, limit, include_generated',
    );
    const list = await call('mark_list', { url: 'mark://root/', limit: 1 });
    assert.equal(isError(list), true);
    assert.equal(
      resultText(list),
      'unknown argument `limit`; mark_list takes url, include_archived, cursor, page_size',
    );
    // Named before a missing argument, which the misspelt one usually explains.
    const misspelt = await call('mark_fetch', { URL: 'mark://root/index.md', forse: true });
    assert.equal(resultText(misspelt), 'unknown arguments `URL`, `forse`; mark_fetch takes url, force');
    const none = await call('mark_worlds', { world: 'root' });
    assert.equal(resultText(none), 'unknown argument `world`; mark_worlds takes no arguments');
  });

  it('tells clients in every input schema that no other argument is taken (additionalProperties: false)', () => {
    for (const tool of tools) assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
  });

  it('gives examples on the hub world by its default name, root, never a world called hub', () => {
    // Before, mark_index and mark_resolve offered mark://hub/index/team-a.md; no world is named hub by default,
    // so an agent copying the example was told the world is unknown.
    for (const tool of tools) assert.doesNotMatch(JSON.stringify(tool), /mark:\/\/hub\//, tool.name);
    const argument = (tool: string, name: string) =>
      tools.find((t) => t.name === tool)?.inputSchema.properties?.[name]?.description ?? '';
    assert.match(argument('mark_index', 'target'), /mark:\/\/root\/index\/team-a\.md/);
    assert.match(argument('mark_resolve', 'index'), /mark:\/\/root\/index\/team-a\.md/);
    assert.match(argument('mark_resolve', 'index'), /hub world \(the broker config's hub, default root\)/);
  });

  it('the recall prompt starts from mark_search, which answers questions in plain words', async () => {
    const prompt = await client.getPrompt({ name: 'recall', arguments: { subject: 'how do tokens rotate' } });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    assert.match(text, /^1\. Call mark_search with query "how do tokens rotate"/m);
    assert.ok(text.indexOf('mark_search') < text.indexOf('mark_lookup_all'));
  });
});
