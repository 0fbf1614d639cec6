import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { callTool, outputSchemaOf } from '../../../src/broker/mcp/run-tool.ts';
import { makeDiffTool, markDiff } from '../../../src/broker/mcp/tools/diff.ts';
import { diffVersions } from '../../../src/broker/mcp/version-diff.ts';
import { toolContext } from './helpers/context.ts';
import { startTestStack, type TestStack } from './helpers/fixture-gateway.ts';

type Data = Record<string, any>;

const lines = (count: number, change: (i: number) => string = (i) => `line ${i}`) =>
  `${Array.from({ length: count }, (_, i) => change(i)).join('\n')}\n`;

describe('mark_diff against a real world', () => {
  let stack: TestStack;
  const call = async (args: Record<string, unknown>, tool = markDiff) => {
    const { result } = await callTool(tool, args, toolContext(stack.gateway));
    if (result.isError !== true) assert.ok(outputSchemaOf(tool)!.safeParse(result.structured).success);
    return { text: result.text, isError: result.isError === true, data: (result.structured ?? {}) as Data };
  };
  before(async () => {
    stack = await startTestStack(['team-a']);
    await stack.seed('team-a', '/docs/a.md', '# A\n\nfirst\nsecond\n');
    await stack.seed('team-a', '/docs/a.md', '# A\n\nfirst\nsecond, edited\nthird\n');
    await stack.seed('team-a', '/docs/big.md', lines(400));
    await stack.seed(
      'team-a',
      '/docs/big.md',
      lines(400, (i) => (i % 20 === 0 ? `changed ${i}` : `line ${i}`)),
    );
  });
  after(() => stack.close());

  it('compares the current version with the one before by default, as a unified diff and as hunks', async () => {
    await stack.seed('team-a', '/docs/b.md', 'one\ntwo\n');
    await stack.seed('team-a', '/docs/b.md', 'one\n2\n');
    const { text, data } = await call({ url: 'mark://team-a/docs/b.md' });
    assert.equal(
      text,
      [
        'status: ok',
        'from: 1',
        'to: 2',
        'added: 1',
        'removed: 1',
        'hunks: 1',
        '',
        '--- mark://team-a/docs/b.md/v1',
        '+++ mark://team-a/docs/b.md/v2',
        '@@ -1,2 +1,2 @@',
        ' one',
        '-two',
        '+2',
        '',
      ].join('\n'),
    );
    assert.equal(data.status, 'ok');
    assert.equal(data.url, 'mark://team-a/docs/b.md');
    assert.equal(data.from, 1);
    assert.equal(data.to, 2);
    assert.deepEqual(data.hunks, [
      { old_start: 1, old_lines: 2, new_start: 1, new_lines: 2, lines: [' one', '-two', '+2'] },
    ]);
    assert.equal(data.truncated, false);
    assert.match(data.to_modified, /^\d{4}-\d\d-\d\dT/);
  });

  it('compares the versions asked for and says when they are the same', async () => {
    const forward = await call({ url: 'mark://team-a/docs/a.md', from: 1, to: 2 });
    assert.equal(forward.data.added, 2);
    assert.equal(forward.data.removed, 1);
    const same = await call({ url: 'mark://team-a/docs/a.md', from: 2, to: 2 });
    assert.deepEqual(same.data.hunks, []);
    assert.match(same.text, /\n\n\(no differences\)\n$/);
  });

  it('compares version 1 with the empty document before it', async () => {
    await stack.seed('team-a', '/docs/new.md', 'hello\n');
    const { text, data } = await call({ url: 'mark://team-a/docs/new.md' });
    assert.equal(data.from, 0);
    assert.equal(data.to, 1);
    assert.deepEqual(data.hunks[0].lines, ['+hello']);
    assert.match(text, /\n--- \/dev\/null\n\+\+\+ mark:\/\/team-a\/docs\/new\.md\/v1\n/);
  });

  it('keeps whole hunks within its size bound and says how many were left out', async () => {
    const full = await call({ url: 'mark://team-a/docs/big.md' });
    assert.equal(full.data.total_hunks, 20);
    assert.equal(full.data.truncated, false);
    const small = makeDiffTool({ maxPatchBytes: 600, timeoutMs: 2000 });
    const cut = await call({ url: 'mark://team-a/docs/big.md' }, small);
    assert.equal(cut.data.truncated, true);
    assert.equal(cut.data.total_hunks, 20);
    assert.ok(cut.data.hunks.length > 0 && cut.data.hunks.length < 20);
    assert.equal(cut.data.added, 20, 'counts cover the whole difference');
    assert.ok(Buffer.byteLength(cut.text) < 900, `${Buffer.byteLength(cut.text)} bytes`);
    assert.match(cut.text, new RegExp(`\ntruncated: true \\(${cut.data.hunks.length} of 20 hunks shown; `));
    const context0 = await call({ url: 'mark://team-a/docs/big.md', context: 0 });
    assert.ok(context0.data.hunks.every((h: Data) => h.lines.every((l: string) => !l.startsWith(' '))));
  });

  it("answers a pruned or missing version with the world's own status", async () => {
    // Both versions given, no VERSIONS is asked: v9's absence is the world's answer.
    const missing = await call({ url: 'mark://team-a/docs/a.md', from: 1, to: 9 });
    assert.equal(missing.isError, false);
    assert.equal(missing.data.status, 'not-found');
    assert.equal(missing.data.url, 'mark://team-a/docs/a.md/v9');
    const nodoc = await call({ url: 'mark://team-a/docs/none.md' });
    assert.equal(nodoc.data.status, 'not-found');
  });

  it('refuses bad arguments before asking the world', async () => {
    const sent = stack.gateway.sent.length;
    assert.deepEqual(
      (await call({ url: 'mark://team-a/docs/a.md', context: 99 })).text,
      'context must be between 0 and 20',
    );
    assert.equal((await call({ url: 'mark://team-a/docs/a.md', from: -1 })).text, 'from must be 0 or a version number');
    assert.equal(
      (await call({ url: 'mark://team-a/docs/a.md', to: 0 })).text,
      'to must be a version number (1 or more)',
    );
    assert.equal(
      (await call({ url: 'mark://team-a/docs/a.md', to: 1.5 })).text,
      'to must be an integer (got number 1.5)',
    );
    assert.equal(stack.gateway.sent.length, sent);
  });

  it('refuses a from newer than to, saying to swap them, instead of a reversed diff', async () => {
    // Before, from 2 and to 1 answered the diff from v2 to v1, although the schema calls from the older version.
    const sent = stack.gateway.sent.length;
    assert.deepEqual(await call({ url: 'mark://team-a/docs/a.md', from: 2, to: 1 }), {
      text: 'from (v2) is newer than to (v1): from is the older version; swap them (from 1, to 2) to see what changed from v1 to v2',
      isError: true,
      data: {},
    });
    assert.equal(stack.gateway.sent.length, sent);
  });

  it('says when a version asked for is beyond the current one, and points at mark_versions', async () => {
    // Before, from 5 on a document at v2 (to left to default) answered "from (v5) is newer than to (v2)…
    // swap them (from 2, to 5)", advice towards a v5 that does not exist.
    assert.deepEqual(await call({ url: 'mark://team-a/docs/a.md', from: 5 }), {
      text: 'from (v5) is beyond the current version (v2) of mark://team-a/docs/a.md: there is no v5 yet; mark_versions lists its versions',
      isError: true,
      data: {},
    });
    assert.deepEqual(await call({ url: 'mark://team-a/docs/a.md', to: 9 }), {
      text: 'to (v9) is beyond the current version (v2) of mark://team-a/docs/a.md: there is no v9 yet; mark_versions lists its versions',
      isError: true,
      data: {},
    });
  });
});

describe('version diff bounds (pure)', () => {
  it('gives up on a difference too costly to compute instead of holding the broker', async () => {
    const a = lines(20_000, (i) => `a ${i * 7919}`);
    const b = lines(20_000, (i) => `b ${i * 104729}`);
    assert.deepEqual(
      await diffVersions({ label: 'a', text: a }, { label: 'b', text: b }, 3, { maxPatchBytes: 1 << 20, timeoutMs: 1 }),
      {
        kind: 'too-complex',
      },
    );
  });
});

describe('mark_diff hunk starts', () => {
  // Before, a pure insertion's text said @@ -0,0 +1,3 @@ while structuredContent said old_start: 1.
  const headerOf = (hunk: { old_start: number; old_lines: number; new_start: number; new_lines: number }) =>
    `@@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@`;

  for (const [name, from, to] of [
    ['an insertion into an empty document', '', 'a\nb\nc\n'],
    ['an insertion after line 2, no context', 'a\nb\nc\n', 'a\nb\nnew\nc\n'],
    ['a deletion of every line', 'a\nb\n', ''],
    ['a deletion of line 2, no context', 'a\nb\nc\n', 'a\nc\n'],
  ] as const) {
    it(`match the @@ line of the text for ${name}`, async () => {
      const diff = await diffVersions({ label: 'v1', text: from }, { label: 'v2', text: to }, 0);
      assert.equal(diff.kind, 'diff');
      if (diff.kind !== 'diff') return;
      const shown = diff.patch.split('\n').filter((line) => line.startsWith('@@ '));
      assert.equal(shown.length, diff.hunks.length);
      assert.ok(
        diff.hunks.some((hunk) => hunk.old_lines === 0 || hunk.new_lines === 0),
        name,
      );
      assert.deepEqual(diff.hunks.map(headerOf), shown);
    });
  }
});
