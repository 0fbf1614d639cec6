import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/cli-process.ts';
import { runLoginCommand } from '../../src/cli/login-command.ts';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';

/** A credentials file cut short in the middle of its refresh token, as a full disk or a crash could leave it. */
const secret = 'SECRETREFRESHTOKEN';
const corrupt = `{"current":"http://127.0.0.1:8080","signIns":{"http://127.0.0.1:8080":{"refreshToken":${secret}`;

/** A broken credentials file: every command says which file, what to do, and never its content. */
describe('demarkus-broker with a credentials file that is not valid JSON', () => {
  let stack: SignInStack;
  let dir: string;
  const previous = process.env.DEMARKUS_BROKER_CONFIG_DIR;
  before(async () => {
    stack = await startSignInStack();
    dir = await mkdtemp(join(tmpdir(), 'demarkus-cli-corrupt-'));
    process.env.DEMARKUS_BROKER_CONFIG_DIR = dir;
    await writeFile(join(dir, 'credentials.json'), corrupt, { mode: 0o600 });
  });
  after(async () => {
    if (previous === undefined) delete process.env.DEMARKUS_BROKER_CONFIG_DIR;
    else process.env.DEMARKUS_BROKER_CONFIG_DIR = previous;
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });

  const expected = (path: string) =>
    new RegExp(
      `the credentials file ${path.replaceAll('.', '\\.')} is not valid JSON.*delete it or move it aside, then run demarkus-broker login`,
    );

  it('whoami and search name the file and what to do, without quoting any of it', async () => {
    const env = { DEMARKUS_BROKER_CONFIG_DIR: dir, DEMARKUS_BROKER_ISSUER: '', DEMARKUS_BROKER_TOKEN: '' };
    for (const args of [['whoami'], ['search', 'some words']]) {
      const run = await runCli(args, { env });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, expected(join(dir, 'credentials.json')));
      assert.doesNotMatch(run.stderr, /SECRET|REFR/, 'no part of the token');
      assert.equal(run.stdout, '');
    }
  });

  it('login refuses before it starts a sign-in, not after the person confirmed the code', async () => {
    const lines: string[] = [];
    await assert.rejects(
      runLoginCommand(['--issuer', stack.issuer], {
        out: (line) => {
          lines.push(line);
          // Before the fix, the code was printed here: end the wait rather than confirm it.
          throw new Error('login printed a line');
        },
      }),
      expected(join(dir, 'credentials.json')),
    );
    assert.deepEqual(lines, [], 'no code was printed');
    assert.equal(await readFile(join(dir, 'credentials.json'), 'utf8'), corrupt, 'the file is left as it was');
  });
});
