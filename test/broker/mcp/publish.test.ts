import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markPublish } from '../../../src/broker/mcp/tools/publish.ts';
import { alice, bob, toolContext } from './helpers/context.ts';
import { startTestStack, type TestStack } from './helpers/fixture-gateway.ts';

const base = '# Plan\n\nintro\n\n## Steps\n\none\ntwo\n\n## Notes\n\nnone\n';

describe('mark_publish against a real world', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a', 'hub'], { writers: { 'team-a': ['alice@example.com'], hub: [] } });
  });
  after(() => stack.close());

  const publish = (args: Record<string, unknown>, identity = alice) =>
    runTool(markPublish, args, toolContext(stack.gateway, { identity }));
  const fetchBody = async (path: string) =>
    Buffer.from((await stack.worlds['team-a']!.call('FETCH', path)).body).toString();

  it('creates a document at expected_version 0 and reports version and modified', async () => {
    const result = await publish({ url: 'mark://team-a/new.md', body: '# New\n', expected_version: 0 });
    assert.equal(result.text, 'status: created\nversion: 1\nmodified: 2026-01-01T00:00:00Z\n');
  });

  it('stores caller metadata stringified the Go way, and records the caller as agent whatever the caller says', async () => {
    const created = await publish({
      url: 'mark://team-a/meta.md',
      body: '# Meta\n',
      expected_version: 0,
      metadata: { tags: 'a,b', importance: 0.8, agent: 'mallory', auth: 'x', reach: 1000000, pinned: true },
    });
    assert.match(created.text, /^status: created\n/);
    const fetched = await stack.worlds['team-a']!.call('FETCH', '/meta.md');
    assert.equal(fetched.metadata.agent, 'alice@example.com');
    assert.equal(fetched.metadata.importance, '0.8');
    assert.equal(fetched.metadata.tags, 'a,b');
    assert.equal(fetched.metadata.reach, '1e+06');
    assert.equal(fetched.metadata.pinned, 'true');
  });

  it('forwards a world refusal of bad metadata as a normal result', async () => {
    const result = await publish({
      url: 'mark://team-a/m2.md',
      body: '# M\n',
      expected_version: 0,
      metadata: { version: '9' },
    });
    assert.equal(result.isError, undefined);
    assert.match(result.text, /^status: bad-request\n\n\n# Bad request\n\nmetadata key "version" is reserved\n$/);
  });

  it('answers a conflict with a clean merge candidate when the edits do not overlap, and publishes nothing', async () => {
    await stack.seed('team-a', '/plan.md', base);
    await stack.seed('team-a', '/plan.md', base.replace('none\n', 'see the wiki\n'));
    const ours = base.replace('one\n', 'one, carefully\n');
    const result = await publish({ url: 'mark://team-a/plan.md', body: ours, expected_version: 1 });
    assert.equal(
      result.text,
      'status: merge-candidate\nyour-version: 1\ncurrent-version: 2\npublish-at-version: 2\nhas-markers: false\n\n' +
        base.replace('one\n', 'one, carefully\n').replace('none\n', 'see the wiki\n'),
    );
    assert.equal(await fetchBody('/plan.md'), base.replace('none\n', 'see the wiki\n'));
  });

  it('marks overlapping edits with git-style markers in the candidate', async () => {
    await stack.seed('team-a', '/clash.md', base);
    await stack.seed('team-a', '/clash.md', base.replace('two\n', 'two (theirs)\n'));
    const result = await publish({
      url: 'mark://team-a/clash.md',
      body: base.replace('two\n', 'two (ours)\n'),
      expected_version: 1,
    });
    assert.match(
      result.text,
      /^status: merge-candidate\nyour-version: 1\ncurrent-version: 2\npublish-at-version: 2\nhas-markers: true\n\n/,
    );
    assert.ok(result.text.includes('one\n<<<<<<< ours\ntwo (ours)\n=======\ntwo (theirs)\n>>>>>>> theirs\n'));
  });

  it("returns the world's conflict verbatim with on_conflict=fail", async () => {
    await stack.seed('team-a', '/strict.md', base);
    await stack.seed('team-a', '/strict.md', `${base}more\n`);
    const result = await publish({
      url: 'mark://team-a/strict.md',
      body: 'mine\n',
      expected_version: 1,
      on_conflict: ' fail ',
    });
    assert.equal(result.isError, undefined);
    assert.match(result.text, /^status: conflict\nserver-version: 2\nyour-version: 1\n\n# Version Conflict\n/);
  });

  it('says an expected_version beyond the current version is the mistake, and which version to publish at', async () => {
    await stack.seed('team-a', '/ahead.md', base);
    const result = await publish({ url: 'mark://team-a/ahead.md', body: 'mine\n', expected_version: 7 });
    assert.deepEqual(result, {
      isError: true,
      text:
        'publish failed: expected_version 7 is newer than the current version 1 of mark://team-a/ahead.md: ' +
        'fetch the document, apply your change to it and publish with expected_version 1',
    });
    assert.equal(await fetchBody('/ahead.md'), base, 'nothing was written');
  });

  it('treats a conflict with its own identical earlier submission as published', async () => {
    const args = { url: 'mark://team-a/retry.md', body: '# Retry\n', expected_version: 0, metadata: { tags: 'x' } };
    assert.match((await publish(args)).text, /^status: created\nversion: 1\n/);
    assert.equal((await publish(args)).text, 'status: ok\nversion: 1\nmodified: 2026-01-01T00:00:00Z\n');
  });

  it('validates expected_version and on_conflict with the reference texts', async () => {
    assert.deepEqual(await publish({ url: 'mark://team-a/x.md', body: 'x' }), {
      isError: true,
      text: 'expected_version is required',
    });
    assert.deepEqual(await publish({ url: 'mark://team-a/x.md', body: 'x', expected_version: -1 }), {
      isError: true,
      text: 'expected_version must be >= 0',
    });
    assert.deepEqual(
      await publish({ url: 'mark://team-a/x.md', body: 'x', expected_version: 0, on_conflict: 'overwrite' }),
      {
        isError: true,
        text: 'invalid on_conflict "overwrite": expected "merge" or "fail"',
      },
    );
    assert.deepEqual(await publish({ url: 'mark://team-a/x.md', expected_version: 0 }), {
      isError: true,
      text: 'body is required',
    });
  });

  it('refuses a caller who may not write before anything reaches the world', async () => {
    const sent = stack.gateway.sent.length;
    assert.deepEqual(await publish({ url: 'mark://team-a/x.md', body: 'x', expected_version: 0 }, bob), {
      isError: true,
      text: 'write access denied for world "team-a"',
    });
    assert.deepEqual(await publish({ url: 'mark://hub/x.md', body: 'x', expected_version: 0 }), {
      isError: true,
      text: 'write access denied for world "hub"',
    });
    assert.deepEqual(
      await publish({ url: 'mark://team-a/x.md', body: 'x', expected_version: 0 }, { ...alice, emailVerified: false }),
      {
        isError: true,
        text: 'identity email is not verified',
      },
    );
    assert.deepEqual(await publish({ url: 'mark://nowhere/x.md', body: 'x', expected_version: 0 }), {
      isError: true,
      text: 'world "nowhere" is not configured (known worlds: team-a, hub)',
    });
    assert.equal(stack.gateway.sent.length, sent);
  });
});

describe('mark_publish to a world that is down', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a'], { writers: { 'team-a': ['alice@example.com'] } });
    await stack.worlds['team-a']!.server.close();
  });
  after(() => stack.close());

  it('names the verb once in both conflict modes, as every other write tool does', async () => {
    // Before, merge mode (the default) read "publish failed: publish: world team-a is unavailable".
    for (const on_conflict of ['merge', 'fail']) {
      const result = await runTool(
        markPublish,
        { url: 'mark://team-a/x.md', body: 'x', expected_version: 0, on_conflict },
        toolContext(stack.gateway),
      );
      assert.deepEqual(result, { isError: true, text: 'publish failed: world team-a is unavailable' }, on_conflict);
    }
  });
});
