import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialsPath, runLoginCommand } from '../../src/cli/login-command.ts';
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

  it('tells a user who never signed in to run login, as a failure (stderr), never as output', async () => {
    const lines: string[] = [];
    await assert.rejects(
      runWhoamiCommand(['--issuer', 'http://127.0.0.1:1'], { out: (l) => lines.push(l) }),
      /^Error: not signed in to http:\/\/127\.0\.0\.1:1; run demarkus-broker login --issuer http:\/\/127\.0\.0\.1:1$/,
    );
    assert.deepEqual(lines, []);
  });
});
