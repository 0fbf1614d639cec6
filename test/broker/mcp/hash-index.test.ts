import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { prefixedSha256 } from '../../../src/protocol/token.ts';
import {
  mergeContentIndex,
  parseContentIndex,
  renderContentIndex,
} from '../../../src/protocol/render/content-index.ts';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { makeIndexTool, markIndex } from '../../../src/broker/mcp/tools/index-tool.ts';
import { markResolve } from '../../../src/broker/mcp/tools/resolve.ts';
import { testNow, toolContext } from './helpers/context.ts';
import { startTestStack, type TestStack } from './helpers/fixture-gateway.ts';
import type { MarkResponse } from '../../../src/protocol/response.ts';
import { MemoryGateway, response } from './helpers/memory-gateway.ts';

const h = (text: string) => prefixedSha256(text);

describe('legacy hash index document (Mark SPEC §12.1)', () => {
  const entries = [
    { hash: h('a'), server: 'mark://team-a', path: '/a.md' },
    { hash: h('b'), server: 'mark://team-a', path: '/docs/b.md' },
  ];

  it('builds the exact document and parses it back to the same rows', () => {
    const doc = renderContentIndex('mark://team-a', new Date('2026-01-08T12:00:00.500Z'), entries);
    assert.equal(
      doc,
      '# Content Index\n\n> Source: mark://team-a\n> Indexed: 2026-01-08T12:00:00Z\n> Documents: 2\n\n| Hash | Server | Path |\n|------|--------|------|\n' +
        `| ${h('a')} | mark://team-a | /a.md |\n| ${h('b')} | mark://team-a | /docs/b.md |\n`,
    );
    assert.deepEqual(parseContentIndex(doc), entries);
  });

  it('skips header, separator and malformed rows of every table', () => {
    assert.deepEqual(
      parseContentIndex(
        '| H | S | P |\n|---|---|---|\n| only | two |\n| x y | s | /p |\n\ntext\n| a | b | c |\n|-|-|-|\n| 1 | 2 | 3 |\n',
      ),
      [{ hash: '1', server: '2', path: '3' }],
    );
  });

  it("replaces every spelling of the source server and keeps other servers' rows", () => {
    const existing = [
      { hash: h('old'), server: 'mark://TEAM-A:6309', path: '/old.md' },
      { hash: h('x'), server: 'mark://team-b', path: '/x.md' },
    ];
    assert.deepEqual(mergeContentIndex(existing, 'mark://team-a', entries), [existing[1], ...entries]);
  });
});

describe('mark_index and mark_resolve against real worlds', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a', 'hub']);
    await stack.seed('team-a', '/a.md', '# A\n');
    await stack.seed('team-a', '/docs/b.md', '# B\n');
    await stack.seed('team-a', '/docs/deep/c.md', '# C\n');
  });
  after(() => stack.close());

  const ctx = () => toolContext(stack.gateway);
  const expectedRows = () => [
    { hash: h('# A\n'), server: 'mark://team-a', path: '/a.md' },
    { hash: h('# B\n'), server: 'mark://team-a', path: '/docs/b.md' },
    { hash: h('# C\n'), server: 'mark://team-a', path: '/docs/deep/c.md' },
  ];

  it('returns the whole index on a dry run and publishes nothing', async () => {
    const sent = stack.gateway.sent.length;
    const result = await runTool(
      markIndex,
      { source: 'mark://team-a/', target: 'mark://hub/index/team-a.md', dry_run: true },
      ctx(),
    );
    assert.equal(
      result.text,
      `Indexed 3 documents from mark://team-a (dry run, not published)\n\n${renderContentIndex('mark://team-a', testNow(), expectedRows())}`,
    );
    assert.ok(stack.gateway.sent.slice(sent).every((call) => call.verb !== 'PUBLISH'));
  });

  it("publishes the index to the target and a later update keeps other servers' rows", async () => {
    const result = await runTool(markIndex, { source: 'mark://team-a', target: 'mark://hub/index/all.md' }, ctx());
    assert.equal(
      result.text,
      'Indexed 3 documents from mark://team-a\nstatus: created\nversion: 1\nmodified: 2026-01-01T00:00:00Z\n',
    );
    await stack.seed(
      'hub',
      '/index/all.md',
      renderContentIndex('mark://hub', testNow(), [
        { hash: h('x'), server: 'mark://team-b', path: '/x.md' },
        ...expectedRows(),
      ]),
    );
    const update = await runTool(
      markIndex,
      { source: 'mark://team-a/', target: 'mark://hub/index/all.md', expected_version: 2 },
      ctx(),
    );
    assert.match(update.text, /^Indexed 3 documents from mark:\/\/team-a\nstatus: created\nversion: 3\n/);
    const stored = Buffer.from((await stack.worlds.hub!.call('FETCH', '/index/all.md')).body).toString();
    assert.deepEqual(parseContentIndex(stored), [
      { hash: h('x'), server: 'mark://team-b', path: '/x.md' },
      ...expectedRows(),
    ]);
    assert.match(stored, /^# Content Index\n\n> Source: mark:\/\/hub\n/);
  });

  it('indexes only the source directory when given one', async () => {
    const result = await runTool(
      markIndex,
      { source: 'mark://team-a/docs/', target: 'mark://hub/i.md', dry_run: true },
      ctx(),
    );
    assert.match(result.text, /^Indexed 2 documents from mark:\/\/team-a \(dry run, not published\)\n/);
    assert.doesNotMatch(result.text, /\/a\.md/);
  });

  it("says why the source could not be listed: the listing's first problem, as mark_doctor does", async () => {
    // Before, the agent read only "crawl failed: could not list /nope/ in world team-a", never the world's answer.
    const result = await runTool(
      markIndex,
      { source: 'mark://team-a/nope/', target: 'mark://hub/i.md', dry_run: true },
      ctx(),
    );
    assert.deepEqual(result, {
      isError: true,
      text: 'crawl failed: could not list /nope/ in world team-a: /nope/: LIST /nope/: not-found',
    });
  });

  it('states its document bound in its description as every broker count is printed (src/broker/count-text.ts)', () => {
    const tool = makeIndexTool({ maxDocuments: 10_000, maxLists: 100, maxDepth: 16 });
    assert.match(tool.description, /the crawl stops at 10,000 documents\./);
  });

  it('refuses to publish an index cut short by its bounds, and says so on a dry run', async () => {
    const small = makeIndexTool({ maxDocuments: 2, maxLists: 100, maxDepth: 16 });
    const refused = await runTool(small, { source: 'mark://team-a/', target: 'mark://hub/index/partial.md' }, ctx());
    assert.deepEqual(refused, { isError: true, text: 'crawl incomplete; refusing to publish an authoritative index' });
    assert.equal((await stack.worlds.hub!.call('FETCH', '/index/partial.md')).status, 'not-found');
    const dry = await runTool(
      small,
      { source: 'mark://team-a/', target: 'mark://hub/index/partial.md', dry_run: true },
      ctx(),
    );
    assert.match(
      dry.text,
      /^warning: crawl bounds reached, some content may not be indexed\nIndexed 2 documents from mark:\/\/team-a \(dry run/,
    );
  });

  it('validates its arguments with the reference texts', async () => {
    assert.deepEqual(await runTool(markIndex, { target: 'mark://hub/i.md' }, ctx()), {
      isError: true,
      text: 'source is required',
    });
    assert.deepEqual(
      await runTool(markIndex, { source: 'mark://team-a/', target: 'mark://hub/i.md', expected_version: -1 }, ctx()),
      {
        isError: true,
        text: 'expected_version must be non-negative',
      },
    );
    const bad = await runTool(markIndex, { source: 'http://x/', target: 'mark://hub/i.md' }, ctx());
    assert.deepEqual(bad, { isError: true, text: 'invalid source URL: unsupported scheme "http" (expected mark://)' });
  });

  it('resolves a hash through the published index, verifying it against the content', async () => {
    const result = await runTool(markResolve, { hash: h('# B\n'), index: 'mark://hub/index/all.md' }, ctx());
    assert.match(result.text, new RegExp(`^status: ok\\nversion: 1\\nmodified: \\S+\\ncontent-hash: ${h('# B\n')}\\n`));
    assert.ok(result.text.endsWith('\n\n# B\n'));
  });

  it('maps an index row naming a world by its dial address back to that world', async () => {
    const address = stack.gateway.get('team-a')!.address;
    await stack.seed(
      'hub',
      '/index/by-address.md',
      renderContentIndex('mark://hub', testNow(), [{ hash: h('# A\n'), server: `mark://${address}`, path: '/a.md' }]),
    );
    const result = await runTool(markResolve, { hash: h('# A\n'), index: 'mark://hub/index/by-address.md' }, ctx());
    assert.ok(result.text.endsWith('\n\n# A\n'));
  });

  it('explains why a hash cannot be resolved', async () => {
    assert.deepEqual(await runTool(markResolve, { hash: 'sha256-ABC', index: 'mark://hub/index/all.md' }, ctx()), {
      isError: true,
      text: 'invalid hash format: expected sha256-<64 lowercase hex characters>',
    });
    // Before, these two said only `hash … not found in index` and `index fetch returned: not-found`, and not
    // what to try next.
    const index = await stack.gateway.read('hub', { verb: 'FETCH', path: '/index/all.md' });
    const version = index.metadata.version;
    assert.ok(version !== undefined && Number(version) > 0);
    assert.deepEqual(await runTool(markResolve, { hash: h('nope'), index: 'mark://hub/index/all.md' }, ctx()), {
      isError: true,
      text:
        `hash ${h('nope')} not found in index mark://hub/index/all.md: check the hash; if its document is newer ` +
        `than the index, update the index with mark_index source=<the world or directory it covers> ` +
        `target=mark://hub/index/all.md expected_version=${version}`,
    });
    assert.deepEqual(await runTool(markResolve, { hash: h('x'), index: 'mark://hub/index/all.md' }, ctx()), {
      isError: true,
      text: 'could not resolve hash from any server: mark://team-b: not a knowledge-system world (broker has no config for this server)',
    });
    assert.deepEqual(await runTool(markResolve, { hash: h('x'), index: 'mark://hub/missing.md' }, ctx()), {
      isError: true,
      text:
        'index fetch returned: not-found: there is no index document at mark://hub/missing.md; check the URL, ' +
        'or build the index there with mark_index source=<the world or directory to index> target=mark://hub/missing.md',
    });
  });
});

describe('mark_index when a world cannot be reached', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a', 'hub', 'gone']);
    await stack.seed('team-a', '/a.md', '# A\n');
    await stack.worlds.hub!.server.close();
    await stack.worlds.gone!.server.close();
  });
  after(() => stack.close());

  // Before, a world that did not answer read as a world without a manifest, and the agent was told to force.
  it('reports a target that is down as down, not as a missing manifest to override with force', async () => {
    const sent = stack.gateway.sent.filter((call) => call.verb === 'PUBLISH').length;
    const result = await runTool(
      markIndex,
      { source: 'mark://team-a/', target: 'mark://hub/index/team-a.md' },
      toolContext(stack.gateway),
    );
    assert.deepEqual(result, { isError: true, text: 'index (target manifest) failed: world hub is unavailable' });
    assert.equal(stack.gateway.sent.filter((call) => call.verb === 'PUBLISH').length, sent);
  });

  it('reports a source that is down as down, not with a missing-manifest warning', async () => {
    const result = await runTool(
      markIndex,
      { source: 'mark://gone/', target: 'mark://team-a/index/gone.md', dry_run: true },
      toolContext(stack.gateway),
    );
    assert.deepEqual(result, { isError: true, text: 'index (source manifest) failed: world gone is unavailable' });
  });
});

describe('mark_resolve and mark_index rules no real world exhibits', () => {
  /**
   * mark_index of an empty world `src` into mark://dst/i.md, first without force, then with it. The
   * source answers its LIST with no entries and `sourceManifest` to the rest (its agent manifest);
   * the target accepts the PUBLISH and answers `targetManifest` to the rest.
   */
  const indexEmptySource = async (sourceManifest: () => MarkResponse, targetManifest: () => MarkResponse) => {
    const gateway = new MemoryGateway({
      src: (call) =>
        call.verb === 'LIST'
          ? response('ok', { complete: 'true', entries: '0' }, '\n# Index of /\n\n')
          : sourceManifest(),
      dst: (call) => (call.verb === 'PUBLISH' ? response('created', { version: '1' }) : targetManifest()),
    });
    const refused = await runTool(
      markIndex,
      { source: 'mark://src/', target: 'mark://dst/i.md' },
      toolContext(gateway),
    );
    const forced = await runTool(
      markIndex,
      { source: 'mark://src/', target: 'mark://dst/i.md', force: true },
      toolContext(gateway),
    );
    return { refused, forced };
  };

  it('skips a world whose answer does not hash to what it claims', async () => {
    const claimed = h('genuine');
    const gateway = new MemoryGateway({
      hub: () =>
        response(
          'ok',
          { version: '1' },
          renderContentIndex('mark://hub', testNow(), [{ hash: claimed, server: 'mark://liar', path: '/p.md' }]),
        ),
      liar: () => response('ok', { version: '1', 'content-hash': claimed }, 'forged'),
    });
    const result = await runTool(markResolve, { hash: claimed, index: 'mark://hub/index.md' }, toolContext(gateway));
    assert.deepEqual(result, {
      isError: true,
      text: `could not resolve hash from any server: mark://liar: hash mismatch (got ${h('forged')})`,
    });
  });

  it('refuses to publish to a target without an agent manifest unless forced', async () => {
    const { refused, forced } = await indexEmptySource(
      () => response('ok', { version: '1' }, 'manifest'),
      () => response('not-found', {}, '\n# Not found\n\nnone\n'),
    );
    assert.deepEqual(refused, {
      isError: true,
      text: 'target server has no agent manifest; cannot verify it accepts index publications. Use force=true to override, or publish a manifest at /.well-known/agent-manifest.md on the target.',
    });
    assert.equal(
      forced.text,
      'warning: target server has no agent manifest (force=true override)\nIndexed 0 documents from mark://src\nstatus: created\nversion: 1\n',
    );
  });

  it('names an answer other than not-found instead of calling it a missing manifest', async () => {
    const { refused, forced } = await indexEmptySource(
      () => response('not-permitted', {}, '\n# Not permitted\n\nread token required\n'),
      () => response('server-error', {}, '\n# Server error\n\ndisk full\n'),
    );
    assert.deepEqual(refused, {
      isError: true,
      text: "could not check the target server's agent manifest at /.well-known/agent-manifest.md: the world answered server-error: # Server error disk full; nothing was published",
    });
    assert.equal(
      forced.text,
      "warning: could not check the source server's agent manifest: the world answered not-permitted: # Not permitted read token required\n" +
        "warning: could not check the target server's agent manifest: the world answered server-error: # Server error disk full (force=true override)\n" +
        'Indexed 0 documents from mark://src\nstatus: created\nversion: 1\n',
    );
  });
});
