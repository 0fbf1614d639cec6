import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allTools } from '../../../src/broker/mcp/tools/index.ts';
import { callTool, defineTool, outputSchemaOf, runTool } from '../../../src/broker/mcp/run-tool.ts';
import { structuredResult } from '../../../src/broker/mcp/tool-result.ts';
import { goReferenceToolNames } from '../../support/reference-tools.ts';
import { toolContext } from './helpers/context.ts';
import { MemoryGateway } from './helpers/memory-gateway.ts';

describe('the tool registry', () => {
  it('lists the reference tools in the reference order, without the graph tools', () => {
    assert.deepEqual(
      allTools().map((tool) => tool.name),
      [...goReferenceToolNames, 'mark_search', 'mark_doctor', 'mark_diff'],
    );
  });

  it('marks exactly the write tools as not read-only', () => {
    assert.deepEqual(
      allTools()
        .filter((tool) => !tool.readOnly)
        .map((tool) => tool.name),
      ['mark_publish', 'mark_append', 'mark_archive', 'mark_index'],
    );
  });

  it('gives every tool a title, a description and an argument schema that converts to JSON Schema', () => {
    for (const tool of allTools()) {
      assert.ok(tool.title.length > 0 && tool.description.length > 40, tool.name);
      // As tools/list shows it: arguments are converted as input (src/broker/http/register-definitions.ts
      // advertisedOnly), where a clamped integer's transform is its integer schema.
      const schema = z.toJSONSchema(z.object(tool.inputSchema), { io: 'input' }) as {
        properties?: Record<string, { description?: string }>;
      };
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        assert.ok(property.description, `${tool.name}.${name}`);
    }
  });

  it('answers missing required arguments with the reference texts and mistyped ones with what was expected and what came, before any world is asked', async () => {
    const gateway = new MemoryGateway({});
    const expectations: Array<[string, Record<string, unknown>, string]> = [
      ['mark_fetch', {}, 'url is required'],
      ['mark_lookup_all', {}, 'query is required'],
      ['mark_publish', { url: 'mark://w/a.md' }, 'body is required'],
      ['mark_resolve', { index: 'mark://w/i.md' }, 'hash is required'],
      ['mark_resolve', { hash: 'sha256-x' }, 'index is required'],
      ['mark_index', { source: 'mark://w/' }, 'target is required'],
      ['mark_fetch', { url: 42 }, 'url must be a string (got number)'],
      [
        'mark_publish',
        { url: 'mark://w/a.md', body: 'x', expected_version: '1' },
        'expected_version must be an integer (got string "1")',
      ],
      [
        'mark_publish',
        { url: 'mark://w/a.md', body: 'x', expected_version: null },
        'expected_version must be an integer (got null)',
      ],
      ['mark_fetch', { url: 'mark://w/a.md', force: 'true' }, 'force must be a boolean (got string "true")'],
      ['mark_lookup', { url: 'mark://w/', query: ['deploy'] }, 'query must be a string (got array)'],
      ['mark_lookup', { url: 'mark://w/', query: 'deploy', limit: '5' }, 'limit must be an integer (got string "5")'],
      ['mark_doctor', { similarity: '0.9' }, 'similarity must be a number (got string "0.9")'],
      [
        'mark_publish',
        { url: 'mark://w/a.md', body: 'x', expected_version: 0, metadata: { tags: ['a', 'b'] } },
        'metadata.tags must be one comma-separated string, e.g. "a, b" (got array)',
      ],
      [
        'mark_publish',
        { url: 'mark://w/a.md', body: 'x', expected_version: 0, metadata: { title: ['T'] } },
        'metadata.title must be a string, e.g. "Deploy runbook" (got array)',
      ],
      [
        'mark_publish',
        { url: 'mark://w/a.md', body: 'x', expected_version: 0, metadata: { owner: null } },
        'metadata.owner must be a string (got null)',
      ],
      [
        'mark_publish',
        { url: 'mark://w/a.md', body: 'x', expected_version: 0, metadata: 'tags=a' },
        'metadata must be an object of string values (got string "tags=a")',
      ],
    ];
    for (const [name, args, text] of expectations) {
      const tool = allTools().find((candidate) => candidate.name === name)!;
      assert.deepEqual(await runTool(tool, args, toolContext(gateway)), { isError: true, text }, name);
    }
    assert.equal(gateway.calls.length, 0);
  });

  it('describes url as a document, never a directory, in the tools that take one document only', () => {
    // Before, the writes and mark_versions said "a document or directory", and an agent passed directories.
    const documentOnly = ['mark_publish', 'mark_append', 'mark_archive', 'mark_versions', 'mark_diff'];
    for (const name of documentOnly) {
      const tool = allTools().find((candidate) => candidate.name === name)!;
      const description = (tool.inputSchema.url as z.ZodType | undefined)?.description ?? '';
      assert.match(description, /URL of a document\b/, name);
      assert.doesNotMatch(description, /director/, name);
    }
  });

  it('answers an empty URL argument as missing, in every tool that takes one, before any world is asked', async () => {
    // Before, most tools read '' as a URL and answered 'invalid URL: unsupported scheme ""', the graph tools
    // 'url is required' (the Go reference's text for both).
    const gateway = new MemoryGateway({});
    const hash = `sha256-${'a'.repeat(64)}`;
    const expectations: Array<[string, Record<string, unknown>, string]> = [
      ['mark_fetch', { url: '' }, 'url is required'],
      ['mark_explore', { url: '' }, 'url is required'],
      ['mark_list', { url: '' }, 'url is required'],
      ['mark_versions', { url: '' }, 'url is required'],
      ['mark_lookup', { url: '', query: 'deploy' }, 'url is required'],
      ['mark_publish', { url: '', body: 'x', expected_version: 0 }, 'url is required'],
      ['mark_append', { url: '', body: 'x' }, 'url is required'],
      ['mark_archive', { url: '' }, 'url is required'],
      ['mark_discover', { url: '' }, 'url is required'],
      ['mark_resolve', { hash, index: '' }, 'index is required'],
      ['mark_index', { source: '', target: 'mark://w/i.md' }, 'source is required'],
      ['mark_index', { source: 'mark://w/', target: '' }, 'target is required'],
      ['mark_diff', { url: '' }, 'url is required'],
    ];
    const urlArguments = ['url', 'index', 'source', 'target'];
    const covered = new Set(expectations.map(([name, , text]) => `${name}.${text.split(' ')[0]}`));
    for (const tool of allTools())
      for (const name of Object.keys(tool.inputSchema).filter((key) => urlArguments.includes(key)))
        assert.ok(covered.has(`${tool.name}.${name}`), `${tool.name}.${name} is not checked here`);
    for (const [name, args, text] of expectations) {
      const tool = allTools().find((candidate) => candidate.name === name)!;
      assert.deepEqual(await runTool(tool, args, toolContext(gateway)), { isError: true, text }, name);
    }
    assert.equal(gateway.calls.length, 0);
  });

  it('turns an unexpected exception into a tool error that does not repeat its text', async () => {
    const gateway = new MemoryGateway({
      w: () => {
        throw new Error('disk on fire');
      },
    });
    const fetch = allTools()[0]!;
    assert.deepEqual(await runTool(fetch, { url: 'mark://w/a.md' }, toolContext(gateway)), {
      isError: true,
      text: 'fetch failed: internal error',
    });
  });

  it('declares an outputSchema on every tool, graph tools included, that converts to an object JSON Schema', () => {
    for (const tool of allTools({ graph: true })) {
      const output = outputSchemaOf(tool);
      assert.ok(output, `${tool.name} has no outputSchema`);
      assert.equal((z.toJSONSchema(output) as { type?: string }).type, 'object', tool.name);
    }
  });

  it('names a next page in its output only where the tool takes the argument to ask for it', () => {
    // next_offset is answered as offset, next_cursor as cursor; a field no argument reads is a dead end.
    const pagers = { offset: 'next_offset', cursor: 'next_cursor' } as const;
    for (const tool of allTools({ graph: true })) {
      const outputs = Object.keys(tool.outputSchema ?? {});
      for (const [argument, field] of Object.entries(pagers)) {
        const taken = argument in tool.inputSchema;
        assert.equal(outputs.includes(field), taken, `${tool.name}: ${field} in output, ${argument} argument`);
        if (argument === 'offset') assert.equal(outputs.includes('offset'), taken, `${tool.name}: offset in output`);
      }
    }
    const graph = allTools({ graph: true }).find((tool) => tool.name === 'mark_graph')!;
    assert.deepEqual(Object.keys(graph.outputSchema ?? {}).sort(), [
      'edge_count',
      'edges',
      'node_count',
      'nodes',
      'not_recorded',
      'status',
      'url',
    ]);
  });

  it("refuses to hand out an answer outside the tool's own outputSchema (logged, never shown)", async () => {
    const logged: unknown[] = [];
    const tool = defineTool({
      name: 'mark_broken',
      title: 'Broken',
      description: 'answers with structure that does not fit its schema',
      inputSchema: {},
      outputSchema: { count: z.number().int() },
      readOnly: true,
      openWorld: false,
      handler: async () => structuredResult('count: many\n', { count: 'many' }),
    });
    const { result, outcome } = await callTool(tool, {}, toolContext(new MemoryGateway({})), {
      logError: (error) => logged.push(error),
    });
    assert.equal(outcome, 'exception');
    assert.deepEqual(result, { isError: true, text: 'broken failed: internal error' });
    assert.equal((logged[0] as Error).name, 'StructuredOutputError');
  });
});
