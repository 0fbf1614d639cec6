import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { generateSigningKeyPem, loadSigningKey } from '../../src/broker/auth/signing-key.ts';
import { runCli } from './cli-process.ts';
import { readKeptSignIn, writeKeptSignIn } from './kept-sign-in.ts';

/** What the stand-in broker answers: 503 on its token and device endpoints, or a device grant and then invalid_grant. */
type Mode = 'unavailable' | 'invalid_grant';

/**
 * The broker's OAuth endpoints while its state store is down: discovery
 * answers (it needs no store), the token and device endpoints answer 503
 * temporarily_unavailable with Retry-After, as src/broker/auth answers with
 * ERR_STATE_UNAVAILABLE (docs/errors.md). A real broker cannot be made to do
 * this without taking Redis down under it.
 */
async function startBroker(): Promise<{
  issuer: string;
  mode: { current: Mode };
  deadTokenEndpoint: { on: boolean };
  server: Server;
}> {
  const mode = { current: 'unavailable' as Mode };
  const deadTokenEndpoint = { on: false };
  const dead = await closedPort();
  const server = createServer((request, response) => {
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    response.setHeader('content-type', 'application/json');
    if (request.url?.startsWith('/.well-known/')) {
      response.end(
        JSON.stringify({
          issuer,
          token_endpoint: deadTokenEndpoint.on ? `http://127.0.0.1:${dead}/token` : `${issuer}/token`,
          device_authorization_endpoint: `${issuer}/device_authorization`,
          jwks_uri: `${issuer}/jwks`,
        }),
      );
      return;
    }
    if (request.url === '/device_authorization' && mode.current !== 'unavailable') {
      response.end(
        JSON.stringify({
          device_code: 'DC',
          user_code: 'ABCD-EFGH',
          verification_uri: `${issuer}/device`,
          expires_in: 600,
          interval: 1,
        }),
      );
      return;
    }
    if (mode.current === 'invalid_grant') {
      response.statusCode = 400;
      response.end(JSON.stringify({ error: 'invalid_grant', error_description: 'the refresh token was revoked' }));
      return;
    }
    response.statusCode = 503;
    response.setHeader('retry-after', '5');
    response.end(
      JSON.stringify({
        error: 'temporarily_unavailable',
        error_description: 'the sign-in state store did not answer; try again shortly',
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, mode, deadTokenEndpoint, server };
}

/** A loopback port nothing listens on: bound, read and released. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a broker that is briefly unavailable is not a sign-in that ended (spawned CLI)', () => {
  let broker: Awaited<ReturnType<typeof startBroker>>;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const key = loadSigningKey(generateSigningKeyPem());
  before(async () => {
    broker = await startBroker();
    dir = await mkdtemp(join(tmpdir(), 'demarkus-cli-unavailable-'));
    env = { DEMARKUS_BROKER_CONFIG_DIR: dir, DEMARKUS_BROKER_ISSUER: '', DEMARKUS_BROKER_TOKEN: '' };
  });
  after(async () => {
    broker.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A kept sign-in whose access token is due for a refresh, as login writes it. */
  async function expiredSignIn(): Promise<void> {
    const accessToken = await mintBrokerToken({
      key,
      issuer: broker.issuer,
      audience: `${broker.issuer}/mcp`,
      email: 'paula@example.com',
      ttlSeconds: 60,
    });
    await writeKeptSignIn(dir, { issuer: broker.issuer, accessToken, refreshToken: 'RT-KEPT', expiresAt: 0 });
  }

  const keptRefreshToken = async () => (await readKeptSignIn(dir, broker.issuer)).refreshToken;

  it('whoami and search say the broker is unavailable (503) and the sign-in is kept, and keep it', async () => {
    broker.mode.current = 'unavailable';
    await expiredSignIn();
    for (const args of [['whoami'], ['search', 'some words']]) {
      const run = await runCli(args, { env });
      assert.equal(run.code, 1, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(
          `the broker at ${broker.issuer} is unavailable \\(HTTP 503, retry after 5 s\\); the sign-in is kept: try again shortly`,
        ),
      );
      assert.doesNotMatch(run.stderr, /no longer valid|login/);
      assert.equal(await keptRefreshToken(), 'RT-KEPT');
    }
  });

  it('says the same, with the network reason, when the token endpoint does not answer at all', async () => {
    broker.mode.current = 'unavailable';
    broker.deadTokenEndpoint.on = true;
    try {
      await expiredSignIn();
      const run = await runCli(['whoami'], { env });
      assert.equal(run.code, 1, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(
          `the broker at ${broker.issuer} is unavailable \\(connection refused, nothing listens at that address \\(ECONNREFUSED\\)\\); the sign-in is kept`,
        ),
      );
      assert.equal(await keptRefreshToken(), 'RT-KEPT');
    } finally {
      broker.deadTokenEndpoint.on = false;
    }
  });

  it('still says to log in again when the broker refuses the refresh token (invalid_grant)', async () => {
    broker.mode.current = 'invalid_grant';
    await expiredSignIn();
    const run = await runCli(['whoami'], { env });
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `the sign-in is no longer valid: invalid_grant \\(the refresh token was revoked\\); run demarkus-broker login --issuer ${broker.issuer}`,
      ),
    );
  });

  it('login says the broker is unavailable when it cannot start a sign-in', async () => {
    broker.mode.current = 'unavailable';
    const run = await runCli(['login', '--issuer', broker.issuer], { env });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stderr,
      `demarkus-broker login: the broker at ${broker.issuer} is unavailable (HTTP 503, retry after 5 s); try again shortly: run demarkus-broker login --issuer ${broker.issuer} again\n`,
    );
  });

  // A 503 with Retry-After while polling is waited out by openid-client itself (its pollGrant), so
  // the outage that ends the wait is a broker that stops answering.
  it('login says the broker is unavailable when it stops answering while waiting for the browser', async () => {
    broker.mode.current = 'invalid_grant';
    broker.deadTokenEndpoint.on = true;
    try {
      const run = await runCli(['login', '--issuer', broker.issuer], { env });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /enter the code ABCD-EFGH/);
      assert.equal(
        run.stderr,
        `demarkus-broker login: the broker at ${broker.issuer} is unavailable (connection refused, nothing listens at that address (ECONNREFUSED)); try again shortly: run demarkus-broker login --issuer ${broker.issuer} again\n`,
      );
    } finally {
      broker.deadTokenEndpoint.on = false;
    }
  });
});
