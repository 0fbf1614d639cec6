import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { access, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/cli-process.ts';
import { runLoginCommand } from '../../src/cli/login-command.ts';
import { credentialsPath } from '../../src/cli/credentials.ts';
import { runWhoamiCommand } from '../../src/cli/whoami-command.ts';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';
import { UserAgent } from './signin-user-agent.ts';

/** `demarkus-broker login` and `whoami` against the broker, with a person approving in the "browser". */
describe('demarkus-broker login and whoami', () => {
  let stack: SignInStack;
  let dir: string;
  const previous = process.env.DEMARKUS_BROKER_CONFIG_DIR;
  before(async () => {
    stack = await startSignInStack();
    dir = await mkdtemp(join(tmpdir(), 'demarkus-cli-config-'));
    process.env.DEMARKUS_BROKER_CONFIG_DIR = dir;
  });
  after(async () => {
    if (previous === undefined) delete process.env.DEMARKUS_BROKER_CONFIG_DIR;
    else process.env.DEMARKUS_BROKER_CONFIG_DIR = previous;
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the URL and code, waits for the browser sign-in, and stores the tokens with mode 0600', async () => {
    const lines: string[] = [];
    let approved: Promise<unknown> | undefined;
    const io = {
      out: (line: string) => {
        lines.push(line);
        const complete = /\(or open (\S+)\)/.exec(line);
        if (complete === null) return;
        approved = (async () => {
          const agent = new UserAgent();
          const login = await agent.submit(await agent.go(complete[1]!), {}, 'action=approve');
          return stack.signInFrom(agent, login, 'paula@example.com');
        })();
      },
    };
    assert.equal(await runLoginCommand(['--issuer', stack.issuer], io), 0);
    await approved;
    assert.match(lines[0]!, new RegExp(`open ${stack.issuer}/device and enter the code [A-Z]{4}-[A-Z]{4}`));
    assert.match(lines.at(-1)!, /Signed in as paula@example\.com/);
    assert.equal((await stat(credentialsPath())).mode & 0o777, 0o600);
    assert.equal((await stat(dir)).mode & 0o077, 0, 'the config directory is private too');
  });

  it('says who is signed in', async () => {
    const lines: string[] = [];
    assert.equal(await runWhoamiCommand([], { out: (l) => lines.push(l) }), 0);
    assert.match(lines[0]!, /as paula@example\.com$/);
    assert.match(lines.join('\n'), /domain: example\.com/);
  });

  it('refreshes an expired access token, storing the rotated refresh token', async () => {
    const file = JSON.parse(await readFile(credentialsPath(), 'utf8'));
    const before = file.signIns[stack.issuer];
    file.signIns[stack.issuer] = { ...before, expiresAt: 0 };
    await writeFile(credentialsPath(), JSON.stringify(file));
    const lines: string[] = [];
    assert.equal(await runWhoamiCommand(['--access-token'], { out: (l) => lines.push(l) }), 0);
    const afterRefresh = JSON.parse(await readFile(credentialsPath(), 'utf8')).signIns[stack.issuer];
    assert.notEqual(afterRefresh.refreshToken, before.refreshToken);
    assert.equal(lines[0], afterRefresh.accessToken);
    assert.ok(afterRefresh.expiresAt > Date.now());
  });

  /** Marks the kept access token expired, so the next use refreshes it; returns the file as it was. */
  async function expireAccessToken(change: (file: any) => void = () => {}): Promise<any> {
    const file = JSON.parse(await readFile(credentialsPath(), 'utf8'));
    const before = structuredClone(file);
    file.signIns[stack.issuer].expiresAt = 0;
    change(file);
    await writeFile(credentialsPath(), JSON.stringify(file));
    return before;
  }

  const accessToken = async (args: string[] = []) => {
    const lines: string[] = [];
    assert.equal(await runWhoamiCommand(['--access-token', ...args], { out: (l) => lines.push(l) }), 0);
    return lines[0]!;
  };

  // Before the credentials lock, both read the same refresh token and sent it: the broker took the
  // second for reuse of a rotated-away token and revoked the whole sign-in (one call failed with
  // "the sign-in is no longer valid", and so did every refresh after it).
  it('keeps the sign-in when two refreshes run at the same moment: one refreshes, the other uses its token', async () => {
    const before = await expireAccessToken();
    const [first, second] = await Promise.all([accessToken(), accessToken()]);
    assert.equal(first, second, 'the one that waited read the token the other refreshed');
    const kept = JSON.parse(await readFile(credentialsPath(), 'utf8')).signIns[stack.issuer];
    assert.equal(kept.accessToken, first);
    assert.notEqual(kept.refreshToken, before.signIns[stack.issuer].refreshToken);
    await assert.rejects(access(`${credentialsPath()}.lock`), 'the lock is released');
    // The family is alive: the rotated refresh token refreshes again.
    await expireAccessToken();
    assert.notEqual(await accessToken(), first);
  });

  it('takes over a lock left by a process that was killed while refreshing', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.on('exit', resolve));
    const lock = { pid: child.pid, host: hostname(), since: Date.now(), nonce: 'left-behind' };
    await writeFile(`${credentialsPath()}.lock`, JSON.stringify(lock));
    await expireAccessToken();
    const token = await accessToken();
    assert.equal(JSON.parse(await readFile(credentialsPath(), 'utf8')).signIns[stack.issuer].accessToken, token);
    await assert.rejects(access(`${credentialsPath()}.lock`));
  });

  it('does not change which sign-in is current when it refreshes another one', async () => {
    const other = 'http://127.0.0.1:1';
    const before = await expireAccessToken((file) => {
      file.signIns[other] = { ...file.signIns[stack.issuer], issuer: other };
      file.current = other;
    });
    const after = await accessToken(['--issuer', stack.issuer])
      .then(async () => JSON.parse(await readFile(credentialsPath(), 'utf8')))
      .finally(async () => {
        // Back to one sign-in, current, for the tests after this one.
        const file = JSON.parse(await readFile(credentialsPath(), 'utf8'));
        delete file.signIns[other];
        file.current = before.current;
        await writeFile(credentialsPath(), JSON.stringify(file));
      });
    assert.equal(after.current, other, 'whoami --issuer refreshed that sign-in and left the default alone');
    assert.ok(after.signIns[stack.issuer].expiresAt > Date.now());
  });

  it('search finds the sign-in when DEMARKUS_BROKER_ISSUER is set but empty, as login and whoami do', async () => {
    const run = await runCli(['search', 'some words', '--url', stack.resource], {
      env: {
        DEMARKUS_BROKER_CONFIG_DIR: dir,
        DEMARKUS_BROKER_ISSUER: '',
        DEMARKUS_BROKER_TOKEN: undefined,
        DEMARKUS_BROKER_URL: undefined,
      },
    });
    assert.doesNotMatch(run.stderr, /not signed in/);
    // The broker accepted the token and answered: its one world (nothing listens at its address) is unavailable.
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /search failed in all worlds: root: world "root" is unavailable/);
  });

  it('tells a user who never signed in to run login, as a failure (stderr), never as output', async () => {
    const lines: string[] = [];
    await assert.rejects(
      runWhoamiCommand(['--issuer', 'http://127.0.0.1:1'], { out: (l) => lines.push(l) }),
      /^Error: not signed in to http:\/\/127\.0\.0\.1:1; run demarkus-broker login --issuer http:\/\/127\.0\.0\.1:1$/,
    );
    assert.deepEqual(lines, []);
  });
});
