import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { maxBodyBytes } from '../../src/protocol/limits.ts';
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

  it('refuses mistyped arguments and values below a bound with a sentence naming it, and clamps where Go clamps', async () => {
    const tooFew = await call('mark_lookup_all', { query: 'xx', limit: 0 });
    assert.equal(isError(tooFew), true);
    assert.equal(resultText(tooFew), 'limit must be at least 1');
    const many = await call('mark_lookup', { url: 'mark://root/', query: 'xx', limit: 5000 });
    assert.equal(isError(many), false, resultText(many));
    const fraction = await call('mark_graph', { url: 'mark://root/index.md', depth: 1.5 });
    assert.equal(resultText(fraction), 'depth must be an integer');
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
    assert.equal(resultText(typed), 'metadata.importance must be a string, e.g. "0.8"');
    const negative = await call('mark_publish', { url: 'mark://root/a.md', body: 'x', expected_version: -1 });
    assert.equal(resultText(negative), 'expected_version must be >= 0');
  });

  it('the recall prompt starts from mark_search, which answers questions in plain words', async () => {
    const prompt = await client.getPrompt({ name: 'recall', arguments: { subject: 'how do tokens rotate' } });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    assert.match(text, /^1\. Call mark_search with query "how do tokens rotate"/m);
    assert.ok(text.indexOf('mark_search') < text.indexOf('mark_lookup_all'));
  });
});
