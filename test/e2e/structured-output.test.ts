import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { resultText, startStack, type Stack } from './stack-fixture.ts';

type Structured = Record<string, any>;

/**
 * Structured tool results over real MCP: the SDK client lists the tools (and
 * so learns each outputSchema) and then checks every structuredContent against
 * it itself; the text beside it is the reference broker's, unchanged.
 */
describe('structured tool results (outputSchema + structuredContent)', () => {
  let stack: Stack;
  let client: Client;
  before(async () => {
    stack = await startStack({ worlds: ['root'] });
    client = await stack.connect();
  });
  after(() => stack.close());

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, resultText(result));
    assert.ok(result.structuredContent, `${name} answered without structuredContent`);
    return { text: resultText(result), data: result.structuredContent as Structured };
  };

  it('declares an object outputSchema for the tools that answer in structure', async () => {
    const { tools } = await client.listTools();
    const declared = tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name);
    for (const name of [
      'mark_fetch',
      'mark_list',
      'mark_versions',
      'mark_lookup',
      'mark_worlds',
      'mark_publish',
      'mark_append',
      'mark_archive',
    ])
      assert.ok(declared.includes(name), `${name} has no outputSchema`);
    for (const tool of tools) if (tool.outputSchema) assert.equal(tool.outputSchema.type, 'object');
  });

  it('answers writes, reads, listings, versions with the chain verdict, lookups and worlds as data', async () => {
    const created = await call('mark_publish', {
      url: 'mark://root/docs/a.md',
      body: '# A\n\nfirst\n',
      expected_version: 0,
      metadata: { title: 'Alpha', tags: 'x,y', importance: '0.5' },
    });
    assert.match(created.text, /^status: created\nversion: 1\n/);
    assert.equal(created.data.status, 'created');
    assert.equal(created.data.version, 1);
    assert.equal(created.data.url, 'mark://root/docs/a.md');

    const fetched = await call('mark_fetch', { url: 'mark://root/docs/a.md' });
    assert.equal(fetched.data.mode, 'full');
    assert.equal(fetched.data.body, '# A\n\nfirst\n');
    assert.equal(fetched.data.version, 1);
    assert.equal(fetched.data.metadata.title, 'Alpha');
    assert.ok(fetched.text.endsWith('\n\n# A\n\nfirst\n'));
    const again = await call('mark_fetch', { url: 'mark://root/docs/a.md' });
    assert.equal(again.data.status, 'unchanged');
    assert.equal(again.data.mode, 'unchanged');
    const section = await call('mark_fetch', { url: 'mark://root/docs/a.md#a' });
    assert.equal(section.data.mode, 'section');
    assert.equal(section.data.section, 'a');

    const appended = await call('mark_append', { url: 'mark://root/docs/a.md', body: 'more\n' });
    assert.equal(appended.data.version, 2);
    const stale = await call('mark_publish', {
      url: 'mark://root/docs/a.md',
      body: '# A\n\nfirst, edited\n',
      expected_version: 1,
    });
    assert.equal(stale.data.status, 'merge-candidate');
    assert.equal(stale.data.merge.publish_at_version, 2);
    assert.equal(stale.data.merge.your_version, 1);
    assert.equal(typeof stale.data.merge.body, 'string');

    const listed = await call('mark_list', { url: 'mark://root/docs/' });
    assert.deepEqual(listed.data.entries, [{ name: 'a.md', kind: 'document', url: 'mark://root/docs/a.md' }]);
    assert.equal(listed.data.complete, true);
    const top = await call('mark_list', { url: 'mark://root/' });
    assert.ok(top.data.entries.some((e: Structured) => e.kind === 'directory' && e.url === 'mark://root/docs/'));

    const versions = await call('mark_versions', { url: 'mark://root/docs/a.md' });
    assert.equal(versions.data.chain_valid, true);
    assert.equal(versions.data.current, 2);
    assert.deepEqual(
      versions.data.versions.map((v: Structured) => [v.version, v.url]),
      [
        [2, 'mark://root/docs/a.md/v2'],
        [1, 'mark://root/docs/a.md/v1'],
      ],
    );

    const found = await call('mark_lookup', { url: 'mark://root/', query: '*' });
    assert.equal(found.data.matches, 1);
    assert.deepEqual(found.data.rows, [
      { url: 'mark://root/docs/a.md', path: '/docs/a.md', importance: 0.5, title: 'Alpha', tags: ['x', 'y'] },
    ]);

    const worlds = await call('mark_worlds');
    assert.equal(worlds.data.count, 1);
    assert.equal(worlds.data.worlds[0].name, 'root');
    assert.equal(worlds.data.worlds[0].writable, true);

    const archived = await call('mark_archive', { url: 'mark://root/docs/a.md' });
    assert.equal(archived.data.url, 'mark://root/docs/a.md');
    const gone = await call('mark_fetch', { url: 'mark://root/docs/a.md' });
    assert.equal(gone.data.status, 'archived');
  });
});
