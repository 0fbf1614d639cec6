import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { allTools } from '../../../src/broker/mcp/tools/index.ts';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { toolContext } from './helpers/context.ts';
import { MemoryGateway } from './helpers/memory-gateway.ts';

describe('the tool registry', () => {
  it('lists the reference tools in the reference order, without the graph tools', () => {
    assert.deepEqual(
      allTools().map((tool) => tool.name),
      [
        'mark_fetch',
        'mark_explore',
        'mark_list',
        'mark_versions',
        'mark_lookup',
        'mark_lookup_all',
        'mark_publish',
        'mark_append',
        'mark_archive',
        'mark_discover',
        'mark_resolve',
        'mark_index',
        'mark_worlds',
        'mark_search',
        'mark_doctor',
      ],
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
      const schema = z.toJSONSchema(z.object(tool.inputSchema)) as {
        properties?: Record<string, { description?: string }>;
      };
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        assert.ok(property.description, `${tool.name}.${name}`);
    }
  });

  it('answers missing required arguments with the reference texts, before any world is asked', async () => {
    const gateway = new MemoryGateway({});
    const expectations: Array<[string, Record<string, unknown>, string]> = [
      ['mark_fetch', {}, 'url is required'],
      ['mark_lookup_all', {}, 'query is required'],
      ['mark_publish', { url: 'mark://w/a.md' }, 'body is required'],
      ['mark_resolve', { index: 'mark://w/i.md' }, 'hash is required'],
      ['mark_resolve', { hash: 'sha256-x' }, 'index is required'],
      ['mark_index', { source: 'mark://w/' }, 'target is required'],
      ['mark_fetch', { url: 42 }, 'url is required'],
    ];
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
});
