import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-process.ts';

/**
 * "0600 in a 0700 directory" (docs/signin.md, login's help): the directory is
 * made private even when it already existed with a looser mode, but only the
 * one named for this tool, never a directory the person chose for other things.
 * `logout` of an issuer nobody signed in to takes the file's lock, as every
 * change does, without a broker.
 */
describe('the credentials directory is kept private (spawned CLI)', () => {
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'demarkus-cli-config-home-'));
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });

  const logout = (env: NodeJS.ProcessEnv) =>
    runCli(['logout', '--issuer', 'http://127.0.0.1:1'], {
      env: { DEMARKUS_BROKER_CONFIG_DIR: undefined, DEMARKUS_BROKER_ISSUER: undefined, ...env },
    });
  const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

  it('tightens an existing default directory (XDG_CONFIG_HOME/demarkus-broker) to 0700, and leaves its parent alone', async () => {
    const configHome = join(home, 'xdg');
    const dir = join(configHome, 'demarkus-broker');
    await mkdir(dir, { recursive: true });
    await chmod(configHome, 0o755);
    await chmod(dir, 0o755);
    const run = await logout({ XDG_CONFIG_HOME: configHome });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await modeOf(dir), 0o700);
    assert.equal(await modeOf(configHome), 0o755, 'the shared config home is not ours to change');
  });

  it('leaves the mode of a directory named by DEMARKUS_BROKER_CONFIG_DIR', async () => {
    const chosen = join(home, 'chosen');
    await mkdir(chosen);
    await chmod(chosen, 0o755);
    const run = await logout({ DEMARKUS_BROKER_CONFIG_DIR: chosen });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await modeOf(chosen), 0o755);
  });
});
