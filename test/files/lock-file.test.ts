import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { withLockFile } from '../../src/files/lock-file.ts';

/** The lock file the CLI's credentials changes run under (src/cli/credentials.ts). */
describe('withLockFile', () => {
  let dir: string;
  let path: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-lock-'));
    path = join(dir, 'state.json.lock');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('runs tasks on one lock one at a time, and removes the file after the last', async () => {
    let inside = 0;
    let most = 0;
    const task = async () => {
      inside++;
      most = Math.max(most, inside);
      for (let i = 0; i < 20; i++) await turn();
      inside--;
    };
    await Promise.all([1, 2, 3].map(() => withLockFile(path, task, { staleAfterMs: 60_000, pollMs: 1 })));
    assert.equal(most, 1);
    await assert.rejects(access(path));
  });

  it('takes over a lock older than staleAfterMs, even from a process that still runs', async () => {
    await writeFile(path, JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() - 600_000 }));
    assert.equal(await withLockFile(path, async () => 'ran', { staleAfterMs: 60_000 }), 'ran');
  });

  it('takes over a lock whose content cannot be read as a holder once the file is old enough', async () => {
    await writeFile(path, 'not json');
    // Dated ten minutes back: only the file's date can make it stale within the 60 s allowed.
    const tenMinutesAgo = new Date(Date.now() - 600_000);
    await utimes(path, tenMinutesAgo, tenMinutesAgo);
    assert.equal(await withLockFile(path, async () => 'ran', { staleAfterMs: 60_000 }), 'ran');
  });

  it('leaves in place a lock another process took over meanwhile', async () => {
    const theirs = JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now(), nonce: 'theirs' });
    await withLockFile(path, () => writeFile(path, theirs), { staleAfterMs: 60_000 });
    assert.equal(await readFile(path, 'utf8'), theirs);
    await rm(path);
  });
});
