/**
 * A write that fails after its version file was linked must leave readers and writers agreeing on
 * the current version. The store links `v<N>` (Mark SPEC §9.3) and only then fsyncs the history
 * folder and swaps the pointer (src/world/store/durable-fs.ts). Before the fix, a failed fsync of
 * the folder, or a failed removal of the temp file after the link, answered server-error and left
 * `v<N>` on disk with the pointer still at `v<N-1>`: FETCH served N-1 while every write with
 * `expected-version: N-1` got `conflict` (server-version N) until a restart, and a write without
 * one built on the failed version. Both tests failed so (checked with the fix reversed; found by
 * /tmp/store-fixes/t3.ts of the store review).
 *
 * The failures are injected by wrapping `node:fs/promises` functions for one path, once
 * (`syncBuiltinESMExports` carries the wrapper into the store's named imports): the store has no
 * file-system seam, and a real disk cannot be made to fail one fsync on demand.
 * A real world server over QUIC and its real file store.
 */
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startWorldFixture, text, type WorldFixture } from './world-fixture.ts';

type Injection = { fn: 'open' | 'rm' | 'symlink'; matches: (path: string) => boolean };

let armed: Injection | null = null;
/** How many times the armed failure fired (each test asserts it did, so it cannot pass vacuously). */
let fired = 0;
const originals = { open: fsp.open, rm: fsp.rm, symlink: fsp.symlink };

function injected(fn: Injection['fn'], path: unknown): Error | null {
  if (armed?.fn !== fn || !armed.matches(String(path))) return null;
  armed = null;
  fired += 1;
  return Object.assign(new Error(`EIO: injected ${fn} failure, '${String(path)}'`), { code: 'EIO' });
}

function installInjection(): void {
  const mutable = fsp as unknown as Record<string, unknown>;
  mutable.open = (path: unknown, ...rest: unknown[]) => {
    const error = injected('open', path);
    return error ? Promise.reject(error) : (originals.open as (...args: unknown[]) => unknown)(path, ...rest);
  };
  // The injected rm still removes, then reports a failure: what a failed unlink after the link looks like to the store.
  mutable.rm = async (path: unknown, ...rest: unknown[]) => {
    const error = injected('rm', path);
    await (originals.rm as (...args: unknown[]) => Promise<void>)(path, ...rest);
    if (error) throw error;
  };
  mutable.symlink = (target: unknown, path: unknown, ...rest: unknown[]) => {
    const error = injected('symlink', path);
    return error
      ? Promise.reject(error)
      : (originals.symlink as (...args: unknown[]) => unknown)(target, path, ...rest);
  };
  syncBuiltinESMExports();
}

function removeInjection(): void {
  Object.assign(fsp as unknown as Record<string, unknown>, originals);
  syncBuiltinESMExports();
}

describe('a write that fails after linking its version leaves no version behind', () => {
  let world: WorldFixture;
  let auth: string;
  let historyOf: (doc: string) => string;
  before(async () => {
    world = await startWorldFixture();
    auth = world.tokens.writer!;
    historyOf = (doc) => join(world.dir, 'root', 'versions', doc);
    installInjection();
  });
  after(async () => {
    removeInjection();
    await world.close();
  });

  /** FETCH, VERSIONS and an expected-version write all name `version` as current. */
  async function assertAgreeOn(doc: string, version: number, body: string): Promise<void> {
    const fetched = await world.call('FETCH', doc);
    assert.equal(fetched.metadata.version, String(version));
    assert.equal(text(fetched), body);
    const versions = await world.call('VERSIONS', doc);
    assert.equal(versions.metadata.current, String(version));
    assert.equal(versions.metadata.total, String(version));
    const retry = await world.call('PUBLISH', doc, { auth, 'expected-version': String(version) }, '# retried\n');
    assert.equal(retry.status, 'created', text(retry));
    assert.equal(retry.metadata.version, String(version + 1));
  }

  it('a failed fsync of the history folder after the link is rolled back', async () => {
    assert.equal((await world.call('PUBLISH', '/a.md', { auth }, '# A1\n')).status, 'created');
    const before = fired;
    armed = { fn: 'open', matches: (path) => path === historyOf('a.md') };
    const failed = await world.call('PUBLISH', '/a.md', { auth, 'expected-version': '1' }, '# A2 failed\n');
    assert.equal(fired, before + 1);
    assert.equal(failed.status, 'server-error');
    await assertAgreeOn('/a.md', 1, '# A1\n');
    assert.notEqual(text(await world.call('FETCH', '/a.md/v2')), '# A2 failed\n');
  });

  it('a failed removal of the temp file after the link does not fail the write', async () => {
    assert.equal((await world.call('PUBLISH', '/b.md', { auth }, '# B1\n')).status, 'created');
    const before = fired;
    armed = { fn: 'rm', matches: (path) => path.startsWith(join(historyOf('b.md'), '.v2.tmp-')) };
    const written = await world.call('PUBLISH', '/b.md', { auth, 'expected-version': '1' }, '# B2\n');
    assert.equal(fired, before + 1);
    assert.equal(written.status, 'created', text(written));
    assert.equal(written.metadata.version, '2');
    await assertAgreeOn('/b.md', 2, '# B2\n');
  });

  it('a failed pointer swap is rolled back, as before', async () => {
    assert.equal((await world.call('PUBLISH', '/c.md', { auth }, '# C1\n')).status, 'created');
    const before = fired;
    armed = { fn: 'symlink', matches: (path) => path.startsWith(join(historyOf('c.md'), '.')) };
    const failed = await world.call('PUBLISH', '/c.md', { auth, 'expected-version': '1' }, '# C2 failed\n');
    assert.equal(fired, before + 1);
    assert.equal(failed.status, 'server-error');
    await assertAgreeOn('/c.md', 1, '# C1\n');
  });
});
