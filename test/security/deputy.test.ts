/**
 * Threat: the confused deputy. The broker holds a publish token on `/**` of
 * every world; a caller who may not read a protected document must not be able
 * to make the broker overwrite, append to, archive or prune it, nor learn from
 * any answer whether it exists or at which version.
 *
 * Real QUIC worlds, the real broker and the real MCP SDK client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';
import { protect } from './read-protection.ts';

describe('security: confused deputy (writes carry the caller read rights)', () => {
  let stack: Stack;
  let mallory: Client;

  before(async () => {
    stack = await startStack({ worlds: ['team-a'] });
    const alice = await stack.connect();
    // The victim document exists before its tree is protected.
    const created = await alice.callTool({
      name: 'mark_publish',
      arguments: { url: 'mark://team-a/private/victim.md', body: '# Victim\n\nsecret\n', expected_version: 0 },
    });
    assert.equal(isError(created), false, resultText(created));
    await protect(stack, '/private/**');
    mallory = await stack.connect(await stack.token('mallory@example.com'));
  });
  after(async () => stack?.close());

  const attacks: Array<[string, string, Record<string, unknown>]> = [
    ['overwrite', 'mark_publish', { body: '# Owned\n', expected_version: 1, on_conflict: 'fail' }],
    ['overwrite with merge', 'mark_publish', { body: '# Owned\n', expected_version: 0 }],
    ['prune history', 'mark_publish', { body: '# Owned\n', expected_version: 1, metadata: { retention: 1 } }],
    ['append', 'mark_append', { body: 'appended by mallory\n' }],
    ['archive', 'mark_archive', {}],
  ];

  for (const [attack, tool, args] of attacks) {
    it(`refuses to ${attack} a document the caller cannot read, with the answer of a missing one`, async () => {
      const existing = await mallory.callTool({
        name: tool,
        arguments: { url: 'mark://team-a/private/victim.md', ...args },
      });
      const missing = await mallory.callTool({
        name: tool,
        arguments: { url: 'mark://team-a/private/never-written.md', ...args },
      });
      assert.equal(isError(existing), true, resultText(existing));
      assert.match(resultText(existing), /read-protected/);
      // No existence or version oracle: the two answers differ only by the path.
      assert.equal(
        resultText(existing).replace('victim.md', 'X'),
        resultText(missing).replace('never-written.md', 'X'),
      );
      assert.doesNotMatch(resultText(existing), /server-version|version: \d/);
    });
  }

  it('left the protected document exactly as it was', async () => {
    const world = stack.worlds.get('team-a')!;
    const { readFile, readdir } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const dir = join(world.root, 'private', 'versions', 'victim.md');
    const versions = (await readdir(dir)).filter((name) => /^v\d+$/.test(name));
    assert.deepEqual(versions, ['v1']);
    assert.match(await readFile(join(dir, 'v1'), 'utf8'), /secret/);
    assert.equal((await readFile(join(dir, 'archive-state'), 'utf8').catch(() => 'false\n')).trim(), 'false');
  });

  it('still writes where the caller may read', async () => {
    const result = await mallory.callTool({
      name: 'mark_publish',
      arguments: { url: 'mark://team-a/public/note.md', body: '# Note\n', expected_version: 0 },
    });
    assert.equal(isError(result), false, resultText(result));
  });
});
