import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { devBrokerConfig } from '../../src/dev/broker-config.ts';
import { deviceGrantFailure } from '../../src/cli/login-command.ts';
import { productionConfigPath } from '../../src/cli/config-path.ts';
import { binPath, runCli } from './cli-process.ts';
import { env as signingKeyEnv, fileConfig } from '../broker/config/fixtures.ts';

/** Runs the CLI in `cwd` (the helper commands look for ./data there). */
function runIn(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('command-line messages name what failed and what to do (spawned CLI)', () => {
  it('prints its version', async () => {
    const { code, stdout } = await runCli(['--version']);
    assert.equal(code, 0);
    assert.match(stdout, /^demarkus-broker \d+\.\d+\.\d+\n$/);
  });

  it('names "world token" in its usage errors', async () => {
    const { code, stderr } = await runCli(['world', 'token', '--label', 'x']);
    assert.equal(code, 2);
    assert.equal(
      stderr,
      'demarkus-broker world token: --paths is required\nRun `demarkus-broker world token --help`.\n',
    );
  });

  it("words node:util's three-line refusal of an ambiguous flag value as one line and the --help pointer", async () => {
    const { code, stderr } = await runCli(['world', 'token', '--label', '-x']);
    assert.equal(code, 2, stderr);
    const lines = stderr.split('\n');
    assert.equal(lines.length, 3, stderr);
    assert.match(lines[0]!, /^demarkus-broker world token: Option '--label' argument is ambiguous\. Did you forget /);
    assert.equal(lines[1], 'Run `demarkus-broker world token --help`.');
  });

  it('with no command at all, prints the commands on stderr and exits 2', async () => {
    const { code, stdout, stderr } = await runCli([]);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /^demarkus-broker <command> \[options\]\n\nCommands:\n/);
  });

  it('refuses a search --direct address that is not a mark:// URL as a usage error', async () => {
    const { code, stderr } = await runCli(['search', 'some words', '--direct', 'https://localhost:6401/']);
    assert.equal(code, 2, stderr);
    assert.equal(
      stderr,
      'demarkus-broker search: --direct: not a mark:// URL: https://localhost:6401/\nRun `demarkus-broker search --help`.\n',
    );
  });

  it('world token refuses a path glob without a leading "/", which would match no request path', async () => {
    const { code, stdout, stderr } = await runCli([
      'world',
      'token',
      '--label',
      'x',
      '--paths',
      '/a/**,docs/**',
      '--ops',
      'publish',
    ]);
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '', 'no token is minted');
    assert.match(stderr, /^demarkus-broker world token: path "docs\/\*\*" must start with "\/", e\.g\. \/docs\/\*\*\n/);
  });

  it('says which configuration files token looked for and how to pass one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-cli-'));
    try {
      const { code, stderr } = await runIn(dir, ['token', '--email', 'a@example.com'], { DEMARKUS_BROKER_CONFIG: '' });
      assert.equal(code, 2);
      assert.match(
        stderr,
        /no broker configuration found: tried \.\/data\/broker\/config\.yaml \(written by npm start\)/,
      );
      assert.match(stderr, /pass --config FILE or set DEMARKUS_BROKER_CONFIG/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('broker takes an empty DEMARKUS_BROKER_CONFIG as unset, as token and crawl do, and reads its default path', {
    skip: existsSync(productionConfigPath) && `${productionConfigPath} exists on this machine`,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-cli-'));
    try {
      const { code, stderr } = await runIn(dir, ['broker'], { DEMARKUS_BROKER_CONFIG: '' });
      assert.equal(code, 1);
      assert.equal(
        stderr,
        `demarkus-broker broker: config: cannot read ${JSON.stringify(productionConfigPath)} (ENOENT)\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('explains that a world name is not an address for the mark command', async () => {
    const { code, stderr } = await runCli(['mark', 'fetch', 'mark://root/index.md', '--timeout', '500']);
    assert.equal(code, 1);
    assert.match(stderr, /"root" looks like a world name .* mark:\/\/localhost:6401\//);
  });

  it('refuses a --timeout that is not a positive whole number of milliseconds, as a usage error', async () => {
    for (const timeout of ['abc', '0']) {
      const { code, stderr } = await runCli(['mark', 'fetch', 'mark://localhost:1/index.md', '--timeout', timeout]);
      assert.equal(code, 2, stderr);
      assert.equal(
        stderr,
        `demarkus-broker mark: --timeout must be a whole number of milliseconds from 1 to 2147483647, got "${timeout}"\nRun \`demarkus-broker mark --help\`.\n`,
      );
    }
  });

  it('refuses a search --limit written as something other than decimal digits', async () => {
    const { code, stderr } = await runCli(['search', 'some words', '--limit', '1e1', '--token', 't']);
    assert.equal(code, 2, stderr);
    assert.match(stderr, /--limit must be a whole number of documents from 1 to 100, got "1e1"/);
  });

  it("refuses a crawl --hub other than the config's hub, which is the one the broker seeds from", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-crawl-hub-'));
    try {
      const config = join(dir, 'config.yaml');
      await writeFile(config, `${fileConfig}hub: team-b\n`);
      const { code, stdout, stderr } = await runCli(['crawl', '--config', config, '--hub', 'team-a'], {
        env: signingKeyEnv,
      });
      assert.equal(code, 2, stderr);
      assert.equal(stdout, '', 'nothing was crawled');
      assert.equal(
        stderr,
        "demarkus-broker crawl: --hub team-a differs from the broker config's hub (team-b), the world brokers seed their graph and read the publishing standard from, so they would never read this crawl; set hub: team-a in the config (chart value crawl.hub) or leave --hub out\nRun `demarkus-broker crawl --help`.\n",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('tells search to sign in when no token is given or kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-cli-'));
    try {
      const { code, stderr } = await runIn(dir, ['search', 'some words'], {
        DEMARKUS_BROKER_CONFIG_DIR: dir,
        DEMARKUS_BROKER_TOKEN: '',
      });
      assert.equal(code, 2);
      assert.match(stderr, /not signed in: run demarkus-broker login/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A loopback port nothing listens on: bound, read and released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('start-up and connection failures name the address, the setting and the next step (spawned CLI)', () => {
  it("broker with npm start's config but no development IdP names the issuer URL, oidc.issuer and npm start", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-cli-'));
    try {
      const idpPort = await closedPort();
      const { file } = await devBrokerConfig({
        dataDir: join(dir, 'data'),
        host: '127.0.0.1',
        port: await closedPort(),
        caFile: join(dir, 'data', 'tls', 'cert.pem'),
        worlds: [{ name: 'root', address: 'localhost:1', tokensFile: join(dir, 'tokens.toml') }],
        idp: { issuer: `http://127.0.0.1:${idpPort}`, clientId: 'demarkus-broker-dev', clientSecret: 'secret' },
      });
      const { code, stderr } = await runIn(dir, ['broker', '--config', file]);
      assert.equal(code, 1);
      assert.doesNotMatch(stderr, /fetch failed/);
      assert.match(
        stderr,
        new RegExp(
          `^demarkus-broker broker: cannot reach the OIDC issuer \\(oidc\\.issuer\\): GET http://127\\.0\\.0\\.1:${idpPort}/\\.well-known/openid-configuration: connection refused, nothing listens at that address \\(ECONNREFUSED\\)\\.`,
        ),
      );
      assert.match(
        stderr,
        /run npm start for the local stack, or set oidc\.issuer to your organisation's OpenID provider/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('login to a broker that is not running says so and points at npm start', async () => {
    const port = await closedPort();
    const { code, stderr } = await runCli(['login', '--issuer', `http://127.0.0.1:${port}`]);
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `demarkus-broker login: cannot reach the broker at http://127.0.0.1:${port}: connection refused, nothing listens at that address (ECONNREFUSED); is npm start (or demarkus-broker broker) running? npm start prints its sign-in address\n`,
    );
  });

  it('dev --help lists every flag, --email included', async () => {
    const { code, stdout } = await runCli(['dev', '--help']);
    assert.equal(code, 0);
    for (const flag of ['--data DIR', '--host HOST', '--port PORT', '--broker-port PORT', '--email EMAIL'])
      assert.match(stdout, new RegExp(`^  ${flag} `, 'm'), flag);
  });
});

describe('login explains the two ways waiting for the browser ends without tokens', () => {
  const issuer = 'http://127.0.0.1:8080';
  it('a code that expired (the broker answers expired_token, or the wait runs out)', () => {
    const expected =
      'the code expired before it was confirmed (codes last 15 minutes); run demarkus-broker login --issuer http://127.0.0.1:8080 again and confirm the new code in time';
    assert.equal(deviceGrantFailure({ error: 'expired_token' }, 900, issuer), expected);
    assert.equal(deviceGrantFailure(new DOMException('timed out', 'TimeoutError'), 900, issuer), expected);
  });

  it("a code refused for another reason names the broker's error and its description", () => {
    assert.equal(
      deviceGrantFailure(
        { error: 'invalid_grant', error_description: 'the code was issued to another client' },
        600,
        issuer,
      ),
      'the broker refused the sign-in: invalid_grant (the code was issued to another client); run demarkus-broker login --issuer http://127.0.0.1:8080 again',
    );
  });
});
