import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { crawlerIdentity } from '../../src/broker/graph/index.ts';
import { isError, resultText, startStack, type Stack } from './stack-fixture.ts';

/**
 * What an agent is shown, used as it would use it: the official MCP SDK client
 * copies the addresses mark_worlds prints into other tools, reads mark_lookup
 * rows as URLs, and searches a hub that holds the crawler's generated files.
 */
describe('addresses agents are shown work in every tool (real MCP client)', () => {
  let stack: Stack;
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const text = async (name: string, args: Record<string, unknown>) => resultText(await call(name, args));
  const publish = async (url: string, body: string, metadata: Record<string, string> = {}) => {
    const result = await call('mark_publish', { url, body, expected_version: 0, metadata });
    assert.equal(isError(result), false, resultText(result));
  };
  // The hub's generated files are written only by the federation crawl, through the broker's world gateway.
  const crawlWrites = async (path: string, body: string, title: string) => {
    const response = await stack.broker.gateway.write('root', crawlerIdentity, {
      verb: 'PUBLISH',
      path,
      metadata: { title, agent: crawlerIdentity.email },
      body,
    });
    assert.equal(response.status, 'created', path);
  };

  before(async () => {
    stack = await startStack({ worlds: ['root', 'team-a'] });
    client = await stack.connect();
    await publish('mark://team-a/runbooks/zebra.md', '# Zebra crossing runbook\n\nHow the zebra rollout works.\n', {
      title: 'Zebra crossing runbook',
      tags: 'zebra',
    });
    // What `crawl` writes on the hub: the graph export, a hash index, crawl state.
    await crawlWrites('/graph.md', '# Zebra graph\n\nzebra zebra zebra\n', 'Zebra graph');
    await crawlWrites(
      `/index/localhost:${stack.worlds.get('team-a')!.port}.md`,
      '# Zebra index\n\nzebra\n',
      'Zebra index',
    );
    await crawlWrites('/.demarkus/crawl-state/team-a.md', '# Zebra crawl state\n\nzebra\n', 'Zebra crawl state');
  });
  after(() => stack.close());

  it('mark_fetch accepts the address column of mark_worlds and answers as the named world', async () => {
    const worlds = await text('mark_worlds', {});
    const address = /\| team-a \| [^|]*\| (mark:\/\/\S+) \|/.exec(worlds)?.[1];
    assert.ok(address !== undefined, worlds);
    assert.match(address, /^mark:\/\/localhost:\d+$/);
    const byAddress = await call('mark_fetch', { url: `${address}/runbooks/zebra.md` });
    assert.equal(isError(byAddress), false, resultText(byAddress));
    const byName = await call('mark_fetch', { url: 'mark://team-a/runbooks/zebra.md', force: true });
    assert.equal(resultText(byAddress).split('\n\n')[1], resultText(byName).split('\n\n')[1]);
    assert.match(resultText(byAddress), /Zebra crossing runbook/);
    const listed = await call('mark_list', { url: `${address.toUpperCase().replace('MARK://', 'mark://')}/runbooks/` });
    assert.match(resultText(listed), /zebra\.md/);
  });

  it('an unknown world, or a port that is no world, names the worlds there are', async () => {
    const unknown = await call('mark_fetch', { url: 'mark://team-z/index.md' });
    assert.equal(isError(unknown), true);
    assert.equal(
      resultText(unknown),
      'broker: unknown world "team-z" (not in broker config; known worlds: root, team-a)',
    );
    const stray = await call('mark_fetch', { url: 'mark://localhost:1/index.md' });
    assert.equal(isError(stray), true);
    assert.match(resultText(stray), /must not carry a port .*; known worlds: root, team-a$/);
  });

  it('mark_lookup rows are mark://world/path URLs that mark_fetch takes as they are', async () => {
    const out = await text('mark_lookup', { url: 'mark://team-a/', query: 'zebra' });
    const url = /^\| (mark:\/\/team-a\/runbooks\/zebra\.md) \|/m.exec(out)?.[1];
    assert.ok(url !== undefined, out);
    const fetched = await call('mark_fetch', { url });
    assert.equal(isError(fetched), false);
  });

  it('search and lookup leave out the graph export, hash indexes and crawl state unless asked', async () => {
    const search = await text('mark_search', { query: 'zebra' });
    assert.match(search, /mark:\/\/team-a\/runbooks\/zebra\.md/);
    assert.doesNotMatch(search, /graph\.md|\/index\/|\.demarkus/);
    const withGenerated = await text('mark_search', { query: 'zebra', include_generated: true });
    assert.match(withGenerated, /mark:\/\/root\/graph\.md/);

    const all = await text('mark_lookup_all', { query: 'zebra' });
    assert.match(all, /mark:\/\/team-a\/runbooks\/zebra\.md/);
    assert.doesNotMatch(all, /graph\.md|\/index\/|\.demarkus/);
    assert.match(
      await text('mark_lookup_all', { query: 'zebra', include_generated: true }),
      /mark:\/\/root\/graph\.md/,
    );

    const hub = await text('mark_lookup', { url: 'mark://root/', query: 'zebra' });
    assert.match(hub, /^matches: 0$/m);
    assert.doesNotMatch(hub, /graph\.md/);
    const hubAll = await text('mark_lookup', { url: 'mark://root/', query: 'zebra', include_generated: true });
    assert.match(hubAll, /^matches: 3$/m);
    assert.match(hubAll, /\| mark:\/\/root\/graph\.md \|/);
  });

  it('a real match ranked below generated documents still fills the limit (the world limits before they are left out)', async () => {
    // Ranked below every generated document: a lower importance in the catalog, one mention among many words in the text.
    await publish(
      'mark://root/notes/zebra-notes.md',
      '# Notes on the graph\n\nThe export lists every document and link; a zebra appears once here among the many other words of these notes.\n',
      { title: 'Graph notes', tags: 'graph', importance: '0.1' },
    );
    const one = await call('mark_lookup', { url: 'mark://root/', query: 'graph', limit: 1 });
    assert.match(resultText(one), /^matches: 1$/m);
    assert.match(resultText(one), /^\| mark:\/\/root\/notes\/zebra-notes\.md \|/m);
    assert.deepEqual(
      (one.structuredContent as { rows: { path: string }[] }).rows.map((row) => row.path),
      ['/notes/zebra-notes.md'],
    );
    const all = await text('mark_lookup_all', { query: 'graph', limit: 1 });
    assert.match(all, /^matches: 1$/m);
    assert.match(all, /^\| mark:\/\/root\/notes\/zebra-notes\.md \|/m);

    const body = await text('mark_lookup', { url: 'mark://root/', query: 'zebra', match: 'body', limit: 1 });
    assert.match(body, /^matches: 1$/m);
    assert.match(body, /^\| mark:\/\/root\/notes\/zebra-notes\.md#/m);
    // team-a's runbook fills one row; the second is the hub's note, not nothing.
    const bodyAll = await text('mark_lookup_all', { query: 'zebra', match: 'body', limit: 2 });
    assert.match(bodyAll, /^matches: 2$/m);
    assert.match(bodyAll, /mark:\/\/root\/notes\/zebra-notes\.md/);
  });

  it('a document URL given where a directory scope is expected says to pass a directory or use mark_fetch', async () => {
    // Before, each answered "not found" for a document that exists (LOOKUP of a document path is not-found).
    const hint = 'scope must be a directory, e.g. /runbooks/; to read a document use mark_fetch';
    const scope = '/runbooks/zebra.md';
    for (const [name, args] of [
      ['mark_lookup_all', { query: 'zebra', scope }],
      ['mark_lookup_all', { query: 'zebra', scope, match: 'body' }],
      ['mark_search', { query: 'zebra rollout', scope }],
    ] as const) {
      const result = await call(name, args);
      assert.equal(isError(result), true, name);
      assert.equal(resultText(result), `${hint} (no world has a directory ${scope})`, name);
    }
    // mark_lookup keeps its status line (web apps read it) and says what to do in the body.
    const one = await text('mark_lookup', { url: 'mark://team-a/runbooks/zebra.md', query: 'zebra' });
    assert.match(one, /^status: not-found\n/);
    assert.ok(
      one.endsWith('\nscope must be a directory, e.g. mark://team-a/runbooks/; to read a document use mark_fetch\n'),
      one,
    );
    // A directory without its trailing / still works, and a missing directory given with one is plain not-found.
    assert.match(await text('mark_lookup_all', { query: 'zebra', scope: '/runbooks' }), /zebra\.md/);
    assert.doesNotMatch(await text('mark_lookup', { url: 'mark://team-a/none/', query: 'zebra' }), /scope must be/);
  });
});
