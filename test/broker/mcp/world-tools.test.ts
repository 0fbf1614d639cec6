import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markAppend } from '../../../src/broker/mcp/tools/append.ts';
import { markArchive } from '../../../src/broker/mcp/tools/archive.ts';
import { markDiscover } from '../../../src/broker/mcp/tools/discover.ts';
import { markFetch } from '../../../src/broker/mcp/tools/fetch.ts';
import { markList } from '../../../src/broker/mcp/tools/list.ts';
import { markLookup } from '../../../src/broker/mcp/tools/lookup.ts';
import { markPublish } from '../../../src/broker/mcp/tools/publish.ts';
import { markVersions } from '../../../src/broker/mcp/tools/versions.ts';
import { markWorlds } from '../../../src/broker/mcp/tools/worlds.ts';
import { bob, toolContext } from './helpers/context.ts';
import { startTestStack, type TestStack } from './helpers/fixture-gateway.ts';

describe('the single-world tools against a real world', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a', 'hub'], {
      writers: { 'team-a': ['alice@example.com'], hub: ['bob@example.com'] },
    });
    await stack.seed('team-a', '/log.md', '# Log\n\nfirst entry\n', { tags: 'journal', title: 'Team log' });
    await stack.seed('team-a', '/docs/a.md', '# A\n');
    await stack.seed('team-a', '/docs/b.md', '# B\n');
    await stack.seed('team-a', '/docs/c.md', '# C\n');
  });
  after(() => stack.close());

  const ctx = () => toolContext(stack.gateway);
  const body = async (path: string) => Buffer.from((await stack.worlds['team-a']!.call('FETCH', path)).body).toString();

  it('mark_append resolves the current version itself when expected_version is left out', async () => {
    const result = await runTool(markAppend, { url: 'mark://team-a/log.md', body: '\nsecond entry\n' }, ctx());
    assert.equal(result.text, 'status: created\nversion: 2\nmodified: 2026-01-01T00:00:00Z\n');
    assert.equal(await body('/log.md'), '# Log\n\nfirst entry\n\nsecond entry\n');
    const fetched = await stack.worlds['team-a']!.call('FETCH', '/log.md');
    assert.equal(fetched.metadata.agent, 'alice@example.com');
    assert.equal(fetched.metadata.title, 'Team log');
  });

  it("mark_append with a stale expected_version returns the world's conflict as a normal result", async () => {
    const result = await runTool(
      markAppend,
      { url: 'mark://team-a/log.md', body: 'late\n', expected_version: 1 },
      ctx(),
    );
    assert.equal(result.isError, undefined);
    assert.match(result.text, /^status: conflict\n/);
  });

  it('mark_append on a missing document says it does not exist and how to create it', async () => {
    // Before: 'could not resolve version: not-found', which says neither.
    assert.deepEqual(await runTool(markAppend, { url: 'mark://team-a/none.md', body: 'x\n' }, ctx()), {
      isError: true,
      text: 'mark://team-a/none.md does not exist, so there is nothing to append to: create it with mark_publish and expected_version 0',
    });
    assert.deepEqual(
      await runTool(markAppend, { url: 'mark://team-a/log.md', body: 'x', expected_version: -2 }, ctx()),
      {
        isError: true,
        text: 'expected_version must be >= 0',
      },
    );
  });

  it('mark_versions reports total, current and chain validity first', async () => {
    const result = await runTool(markVersions, { url: 'mark://team-a/log.md' }, ctx());
    assert.match(
      result.text,
      /^status: ok\ntotal: 2\ncurrent: 2\nchain-valid: true\n\n\n# Version History: \/log\.md\n/,
    );
  });

  it('mark_list pages with page_size and cursor, and refuses a page_size out of range', async () => {
    const first = await runTool(markList, { url: 'mark://team-a/docs/', page_size: 2 }, ctx());
    assert.match(first.text, /^status: ok\ncomplete: false\nentries: 2\nnext-cursor: (\S+)\n/);
    const cursor = /next-cursor: (\S+)/.exec(first.text)![1]!;
    const second = await runTool(markList, { url: 'mark://team-a/docs/', page_size: 2, cursor }, ctx());
    assert.match(
      second.text,
      /^status: ok\ncomplete: true\nentries: 1\n\n\n# Index of \/docs\/\n\n- \[c\.md\]\(c\.md\)\n$/,
    );
    assert.deepEqual(await runTool(markList, { url: 'mark://team-a/docs/', page_size: 0 }, ctx()), {
      isError: true,
      text: 'page_size must be between 1 and 1000',
    });
  });

  it('mark_archive archives, and mark_list shows the document again only with include_archived', async () => {
    const archived = await runTool(markArchive, { url: 'mark://team-a/docs/c.md' }, ctx());
    assert.equal(archived.text, 'status: ok\nversion: 1\narchived: true\n');
    assert.doesNotMatch((await runTool(markList, { url: 'mark://team-a/docs/' }, ctx())).text, /c\.md/);
    assert.match(
      (await runTool(markList, { url: 'mark://team-a/docs/', include_archived: true }, ctx())).text,
      /- \[c\.md\]\(c\.md\)/,
    );
  });

  it("mark_archive refuses a caller outside the world's writers", async () => {
    assert.deepEqual(
      await runTool(markArchive, { url: 'mark://team-a/docs/a.md' }, toolContext(stack.gateway, { identity: bob })),
      {
        isError: true,
        text: 'write access denied for world "team-a"',
      },
    );
  });

  it("mark_lookup forwards the world's table with matches first", async () => {
    const result = await runTool(markLookup, { url: 'mark://team-a/', query: 'journal' }, ctx());
    assert.equal(
      result.text,
      'status: ok\nmatches: 1\n\n\n# Lookup matches for "journal" in /\n\n| Path | Importance | Title | Tags |\n|------|------------|-------|------|\n| mark://team-a/log.md | 0.50 | Team log | journal |\n',
    );
    assert.deepEqual(await runTool(markLookup, { url: 'mark://team-a/' }, ctx()), {
      isError: true,
      text: 'query is required',
    });
  });

  it('mark_lookup refuses a query the world would refuse as too short, by its own rule, without asking it', async () => {
    // Before, the world was asked and its bad-request came back as a normal result, unlike mark_lookup_all and mark_search.
    const sent = stack.gateway.sent.length;
    for (const query of ['x', ' \u0085 ', '\u0085x\u0085']) {
      assert.deepEqual(await runTool(markLookup, { url: 'mark://team-a/', query }, ctx()), {
        isError: true,
        text: 'query must be at least 2 characters',
      });
    }
    assert.equal(stack.gateway.sent.length, sent);
    const all = await runTool(markLookup, { url: 'mark://team-a/', query: ' * ' }, ctx());
    assert.match(all.text, /^status: ok\nmatches: \d+\n/);
  });

  it("mark_lookup refuses '*' with match=body, which no text matches, without asking the world", async () => {
    // Before, the world was asked and its empty table came back as if nothing were catalogued (mark_lookup_all refused it).
    const sent = stack.gateway.sent.length;
    assert.deepEqual(await runTool(markLookup, { url: 'mark://team-a/', query: ' * ', match: 'body' }, ctx()), {
      isError: true,
      text: "query '*' matches no text with match=body; leave match out (catalog) to list every catalogued document",
    });
    assert.equal(stack.gateway.sent.length, sent);
  });

  it('mark_lookup takes a limit above 1000 as 1000, as the world does, and refuses one below 1', async () => {
    // The Go broker passes the limit through and the world clamps it; this one used to refuse it.
    const many = await runTool(markLookup, { url: 'mark://team-a/', query: 'journal', limit: 5000 }, ctx());
    assert.equal(many.isError, undefined);
    assert.match(many.text, /^status: ok\nmatches: 1\n/);
    assert.deepEqual(await runTool(markLookup, { url: 'mark://team-a/', query: 'journal', limit: 0 }, ctx()), {
      isError: true,
      text: 'limit must be at least 1',
    });
  });

  it('a path the protocol cannot carry is an invalid URL that says why, and no world is asked', async () => {
    // Before, the decoded path reached encodeRequest, whose TypeError the agent read as "internal error".
    const control =
      'the path holds a control character (%00 to %1F other than tab, or %7F), which Mark paths may not contain; remove it';
    const sent = stack.gateway.sent.length;
    assert.deepEqual(await runTool(markFetch, { url: 'mark://team-a/a%0Ab.md' }, ctx()), {
      isError: true,
      text: `invalid URL: invalid URL "mark://team-a/a%0Ab.md": ${control}`,
    });
    assert.deepEqual(await runTool(markFetch, { url: 'mark://team-a/a%00b.md' }, ctx()), {
      isError: true,
      text: `invalid URL: invalid URL "mark://team-a/a%00b.md": ${control}`,
    });
    assert.deepEqual(await runTool(markLookup, { url: 'mark://team-a/%0A', query: 'journal' }, ctx()), {
      isError: true,
      text: `invalid URL: invalid URL "mark://team-a/%0A": ${control}`,
    });
    const tooLong = `mark://team-a/${'a'.repeat(4100)}.md`;
    const long =
      'invalid URL: invalid URL: the path is 4104 bytes once percent-decoded, over the Mark limit of 4087; use a shorter path';
    assert.deepEqual(await runTool(markFetch, { url: tooLong }, ctx()), { isError: true, text: long });
    assert.deepEqual(await runTool(markPublish, { url: tooLong, body: '# x\n', expected_version: 0 }, ctx()), {
      isError: true,
      text: long,
    });
    assert.deepEqual(
      await runTool(markPublish, { url: 'mark://team-a/a%0Ab.md', body: '# x\n', expected_version: 0 }, ctx()),
      { isError: true, text: `invalid URL: invalid URL "mark://team-a/a%0Ab.md": ${control}` },
    );
    assert.equal(stack.gateway.sent.length, sent);
  });

  it('mark_discover reads the agent manifest whatever the path', async () => {
    const result = await runTool(markDiscover, { url: 'mark://team-a/some/where.md' }, ctx());
    assert.match(result.text, /^status: ok\n/);
    assert.equal(stack.gateway.sent.at(-1)?.path, '/.well-known/agent-manifest.md');
  });

  it('mark_worlds lists every world with its address and whether the caller may write', async () => {
    const info = stack.gateway.list();
    const expected = (writableA: string, writableHub: string) =>
      'status: ok\ncount: 2\n\n| world | url | address | writable | title | summary | owners | holds | health |\n' +
      '|-------|-----|---------|----------|-------|---------|--------|-------|--------|\n' +
      `| team-a |  | mark://${info[0]!.address} | ${writableA} |  |  |  |  | unknown |\n` +
      `| hub |  | mark://${info[1]!.address} | ${writableHub} |  |  |  |  | unknown |\n`;
    assert.equal((await runTool(markWorlds, {}, ctx())).text, expected('yes', 'no'));
    assert.equal(
      (await runTool(markWorlds, {}, toolContext(stack.gateway, { identity: bob }))).text,
      expected('no', 'yes'),
    );
  });
});
