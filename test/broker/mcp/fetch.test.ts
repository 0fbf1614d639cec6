import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markFetch } from '../../../src/broker/mcp/tools/fetch.ts';
import { maxSeenDocsPerSession } from '../../../src/broker/mcp/fetch-dedup.ts';
import { MemorySession, toolContext } from './helpers/context.ts';
import { startTestStack, type TestStack } from './helpers/fixture-gateway.ts';

/** A document of exactly `bytes` bytes: a heading, a paragraph, a filler line. */
function documentOf(bytes: number): string {
  const head = '# Big\n\nOpening words.\n\n';
  return `${head + 'x'.repeat(bytes - Buffer.byteLength(head) - 1)}\n`;
}

const sectioned =
  '# Guide\n\nWhy this guide exists.\n\n## Install\n\nRun the installer.\n\n### On Linux\n\napt install\n\n## Use\n\nStart it.\n';

describe('mark_fetch against a real world', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a']);
    await stack.seed('team-a', '/small.md', documentOf(8191));
    await stack.seed('team-a', '/large.md', documentOf(8192));
    await stack.seed('team-a', '/guide.md', sectioned);
    await stack.seed('team-a', '/flat.md', 'no headings at all\n');
  });
  after(() => stack.close());

  const fetch = (url: string, options: { force?: boolean; session?: MemorySession } = {}) =>
    runTool(
      markFetch,
      { url, ...(options.force === undefined ? {} : { force: options.force }) },
      toolContext(stack.gateway, { session: options.session ?? new MemorySession() }),
    );

  it('returns a body of 8191 bytes whole, with version, modified and etag first', async () => {
    const direct = await stack.worlds['team-a']!.call('FETCH', '/small.md');
    const result = await fetch('mark://team-a/small.md');
    assert.equal(result.isError, undefined);
    const m = direct.metadata;
    assert.equal(
      result.text,
      `status: ok\nversion: 1\nmodified: ${m.modified}\netag: ${m.etag}\ncontent-hash: ${m['content-hash']}\ntype: Document\n\n${documentOf(8191)}`,
    );
  });

  it('returns an outline with mode and size for a body of 8192 bytes', async () => {
    const direct = await stack.worlds['team-a']!.call('FETCH', '/large.md');
    const result = await fetch('mark://team-a/large.md');
    const m = direct.metadata;
    assert.equal(
      result.text,
      `status: ok\nversion: 1\nmodified: ${m.modified}\netag: ${m.etag}\ncontent-hash: ${m['content-hash']}\nmode: outline\nsize: 8192 bytes, 6 lines\ntype: Document\n\n` +
        '- Big (#big, 5 lines)\n\nOpening words.\n\nfetch mark://team-a/large.md#<anchor> for a section; force=true for the full body\n',
    );
  });

  it('returns the full large body with force=true', async () => {
    const result = await fetch('mark://team-a/large.md', { force: true });
    assert.ok(result.text.endsWith(`\n\n${documentOf(8192)}`));
    assert.doesNotMatch(result.text, /mode: outline/);
  });

  it('slices a #anchor section through to the next heading of the same level, with a section key', async () => {
    const result = await fetch('mark://team-a/guide.md#install');
    assert.match(
      result.text,
      /\nsection: #install\ntype: Document\n\n## Install\n\nRun the installer\.\n\n### On Linux\n\napt install\n\n$/,
    );
  });

  it('finds a section by its heading text as well as by its slug', async () => {
    const result = await fetch('mark://team-a/guide.md#On Linux');
    assert.match(result.text, /\nsection: #On Linux\ntype: Document\n\n### On Linux\n\napt install\n\n$/);
  });

  it('answers an unknown anchor with a tool error listing the anchors there are', async () => {
    const result = await fetch('mark://team-a/guide.md#deploy');
    assert.deepEqual(result, {
      isError: true,
      text: 'section #deploy not found in mark://team-a/guide.md; available anchors: guide, install, on-linux, use',
    });
    const flat = await fetch('mark://team-a/flat.md#intro');
    assert.equal(
      flat.text,
      'section #intro not found in mark://team-a/flat.md; available anchors: (document has no headings)',
    );
  });

  it('returns a world status as a normal result and an unknown world as a tool error', async () => {
    const missing = await fetch('mark://team-a/nope.md');
    assert.equal(missing.isError, undefined);
    assert.equal(missing.text, 'status: not-found\n\n\n# Not found\n\n/nope.md not found\n');
    const unknown = await fetch('mark://team-z/a.md');
    assert.deepEqual(unknown, {
      isError: true,
      text: 'broker: unknown world "team-z" (not in broker config; known worlds: team-a)',
    });
    const bad = await fetch('mark://team-a:9/a.md');
    assert.equal(bad.isError, true);
    assert.match(bad.text, /^invalid URL: invalid URL "mark:\/\/team-a:9\/a\.md": world host must not carry a port/);
  });

  it('answers a missing url with the reference text', async () => {
    assert.deepEqual(await runTool(markFetch, {}, toolContext(stack.gateway)), {
      isError: true,
      text: 'url is required',
    });
  });
});

describe('mark_fetch session memory ("unchanged" notices)', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a']);
    await stack.seed('team-a', '/doc.md', '# Doc\n\nfirst\n');
    await stack.seed('team-a', '/large.md', documentOf(9000));
  });
  after(() => stack.close());

  const fetch = (session: MemorySession, url: string, force?: boolean) =>
    runTool(markFetch, { url, ...(force === undefined ? {} : { force }) }, toolContext(stack.gateway, { session }));

  it('answers a second fetch of an unchanged document with the notice, and force=true with the body', async () => {
    const session = new MemorySession('s-unchanged');
    const first = await fetch(session, 'mark://team-a/doc.md');
    const etag = /etag: ([0-9a-f]{64})/.exec(first.text)![1]!;
    const second = await fetch(session, 'mark://team-a/doc.md');
    assert.equal(
      second.text,
      `status: unchanged\nversion: 1\netag: ${etag}\n\nunchanged since v1; the full body was returned earlier this session; pass force=true to re-read it\n`,
    );
    const forced = await fetch(session, 'mark://team-a/doc.md', true);
    assert.ok(forced.text.endsWith('\n\n# Doc\n\nfirst\n'));
  });

  it('notes a change since the earlier fetch and returns the new body', async () => {
    const session = new MemorySession('s-changed');
    await fetch(session, 'mark://team-a/doc.md');
    await stack.seed('team-a', '/doc.md', '# Doc\n\nsecond\n');
    const result = await fetch(session, 'mark://team-a/doc.md');
    assert.match(result.text, /\nnote: changed since this session's earlier fetch \(v\d+ -> v\d+\)\n/);
    assert.ok(result.text.endsWith('\n\n# Doc\n\nsecond\n'));
  });

  it('keeps no memory without a session id, and none across sessions', async () => {
    const stateless = new MemorySession(null);
    await fetch(stateless, 'mark://team-a/doc.md');
    assert.doesNotMatch((await fetch(stateless, 'mark://team-a/doc.md')).text, /unchanged/);
    const one = new MemorySession('s-one');
    await fetch(one, 'mark://team-a/doc.md');
    assert.doesNotMatch((await fetch(new MemorySession('s-two'), 'mark://team-a/doc.md')).text, /unchanged/);
  });

  it('does not count an outline or a section as having seen the body', async () => {
    const session = new MemorySession('s-outline');
    await fetch(session, 'mark://team-a/large.md');
    assert.match((await fetch(session, 'mark://team-a/large.md')).text, /mode: outline/);
    await fetch(session, 'mark://team-a/doc.md#doc');
    assert.doesNotMatch((await fetch(session, 'mark://team-a/doc.md')).text, /unchanged/);
  });

  it(`remembers at most ${maxSeenDocsPerSession} documents per session, forgetting the oldest`, async () => {
    const session = new MemorySession('s-bounded');
    await fetch(session, 'mark://team-a/doc.md');
    const seen = session.get<Map<string, unknown>>('mark_fetch.seen')!;
    for (let i = 0; i < maxSeenDocsPerSession; i++) seen.set(`team-a/filler-${i}.md`, { version: '1', etag: 'e' });
    await fetch(session, 'mark://team-a/large.md', true);
    assert.equal(seen.size, maxSeenDocsPerSession);
    assert.equal(seen.has('team-a/doc.md'), false);
    assert.doesNotMatch((await fetch(session, 'mark://team-a/doc.md')).text, /unchanged/);
  });
});
