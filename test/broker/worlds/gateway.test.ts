import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { parseBrokerConfig, type BrokerConfig } from '../../../src/broker/config/index.ts';
import {
  type MarkWorldGateway,
  openWorldGateway,
  WorldGatewayError,
  WriteDeniedError,
  WorldUnavailableError,
} from '../../../src/broker/worlds/index.ts';
import { hashToken, generateToken } from '../../../src/protocol/token.ts';
import { signingKey } from '../config/fixtures.ts';
import { person, recordingMetrics, startTestWorld, worldYaml, writeCaFile, type TestWorld } from './world-servers.ts';

const ann = person('ann@example.com');
const bob = person('bob@example.org');
const text = (body: Uint8Array) => Buffer.from(body).toString();

const patientFirstMint = 'firstMintMaxAttempts: 10, firstMintInitialBackoff: 100ms, firstMintMaxBackoff: 1s';

function brokerConfig(state: string, caFile: string, worlds: string[], firstMint = patientFirstMint): BrokerConfig {
  const yaml = `
server:
  addr: "127.0.0.1:0"
  publicURL: http://127.0.0.1:8080
  mcp: { addr: "127.0.0.1:0", ${firstMint} }
storage: { backend: file, dir: ${JSON.stringify(state)} }
worldDialer: { caFile: ${JSON.stringify(caFile)}, dialTimeout: 1s, requestTimeout: 4s, failureThreshold: 2, cooldown: 1m }
worlds:
${worlds.join('\n')}
`;
  return parseBrokerConfig(yaml, { BROKER_SIGNING_KEY: signingKey });
}

describe('world gateway against real world servers', () => {
  const readerToken = generateToken();
  let root: string;
  let teamA: TestWorld;
  let teamB: TestWorld;
  let config: BrokerConfig;
  let gateway: MarkWorldGateway;
  const metrics = recordingMetrics();

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'broker-gateway-'));
    teamA = await startTestWorld('team-a');
    // team-b protects /private/** with a read token, to show reads never carry a caller's token.
    teamB = await startTestWorld(
      'team-b',
      `[tokens.reader]\nhash = "${hashToken(readerToken)}"\npaths = ["/private/**"]\noperations = ["read"]\n`,
    );
    config = brokerConfig(join(root, 'state'), await writeCaFile(root), [
      worldYaml(teamA),
      worldYaml(teamB, '    allow: { emails: [ann@example.com] }'),
    ]);
    gateway = await openWorldGateway(config, { metrics });
  });

  after(async () => {
    await gateway.close();
    await teamA.close();
    await teamB.close();
    await rm(root, { recursive: true, force: true });
  });

  it('lists the configured worlds with their dial addresses', () => {
    assert.deepEqual(gateway.list(), [
      { name: 'team-a', address: `127.0.0.1:${teamA.port}`, source: 'config' },
      { name: 'team-b', address: `127.0.0.1:${teamB.port}`, source: 'config' },
    ]);
    assert.deepEqual(gateway.get('team-b'), { name: 'team-b', address: `127.0.0.1:${teamB.port}`, source: 'config' });
    assert.equal(gateway.get('team-z'), undefined);
  });

  it('provisions the write token into the world tokens file, and the world accepts the write', async () => {
    const response = await gateway.write('team-a', ann, { verb: 'PUBLISH', path: '/notes.md', body: '# Notes\n' });
    assert.equal(response.status, 'created');
    const record = JSON.parse(
      await readFile(join(config.storage.dir!, 'demarkus-broker-write-token-team-a.json'), 'utf8'),
    );
    const tokensText = await readFile(teamA.tokensFile, 'utf8');
    const tokens = (
      parse(tokensText) as { tokens: Record<string, { hash: string; paths: string[]; operations: string[] }> }
    ).tokens;
    assert.deepEqual(
      { ...tokens['broker-write-team-a'] },
      { hash: hashToken(record.rawToken), paths: ['/**'], operations: ['publish'] },
    );
    assert.ok(!tokensText.includes(record.rawToken));
    assert.equal(
      (await stat(join(config.storage.dir!, 'demarkus-broker-write-token-team-a.json'))).mode & 0o777,
      0o600,
    );
  });

  it('records the caller as agent, whatever agent or auth the caller sent', async () => {
    const written = await gateway.write('team-a', ann, {
      verb: 'PUBLISH',
      path: '/agent.md',
      metadata: { agent: 'mallory', auth: 'forged' },
      body: 'x\n',
    });
    assert.equal(written.status, 'created');
    const fetched = await gateway.read('team-a', { verb: 'FETCH', path: '/agent.md' });
    assert.equal(fetched.status, 'ok');
    assert.equal(fetched.metadata.agent, 'ann@example.com');
    assert.equal(text(fetched.body), 'x\n');
  });

  it('reads without a token, even when the caller passes one', async () => {
    const response = await gateway.read('team-b', {
      verb: 'FETCH',
      path: '/private/secret.md',
      metadata: { auth: readerToken },
    });
    assert.equal(response.status, 'unauthorized');
  });

  it('answers world statuses as results, and they do not count as failures', async () => {
    for (let i = 0; i < 3; i++)
      assert.equal((await gateway.read('team-a', { verb: 'FETCH', path: '/missing.md' })).status, 'not-found');
    assert.equal(gateway.circuitState('team-a'), 'closed');
  });

  it('lets a second broker instance reuse the stored token without touching the world file', async () => {
    const tokensBefore = await readFile(teamA.tokensFile);
    const recordBefore = await readFile(join(config.storage.dir!, 'demarkus-broker-write-token-team-a.json'));
    const second = await openWorldGateway(config);
    try {
      assert.equal(
        (await second.write('team-a', ann, { verb: 'PUBLISH', path: '/second.md', body: 'two\n' })).status,
        'created',
      );
    } finally {
      await second.close();
    }
    assert.deepEqual(await readFile(teamA.tokensFile), tokensBefore);
    assert.deepEqual(
      await readFile(join(config.storage.dir!, 'demarkus-broker-write-token-team-a.json')),
      recordBefore,
    );
  });

  it('denies a writer outside the allowlist and sends nothing', async () => {
    const tokensBefore = await readFile(teamB.tokensFile, 'utf8');
    const eventsBefore = metrics.of('team-b').length;
    await assert.rejects(
      gateway.write('team-b', bob, { verb: 'PUBLISH', path: '/x.md', body: 'x' }),
      (error: unknown) => {
        assert.ok(error instanceof WriteDeniedError);
        assert.equal(error.code, 'ERR_WRITE_DENIED');
        assert.equal(error.message, 'write access denied for world "team-b"');
        return true;
      },
    );
    assert.equal(metrics.of('team-b').length, eventsBefore);
    assert.equal(await readFile(teamB.tokensFile, 'utf8'), tokensBefore);
    await assert.rejects(stat(join(config.storage.dir!, 'demarkus-broker-write-token-team-b.json')), {
      code: 'ENOENT',
    });
    assert.equal(gateway.canWrite('team-b', bob), false);
    assert.equal(gateway.canWrite('team-b', ann), true);
  });

  it('refuses an unverified email before anything is sent', async () => {
    const eventsBefore = metrics.events.length;
    await assert.rejects(
      gateway.write('team-a', person('ann@example.com', false), { verb: 'PUBLISH', path: '/x.md', body: 'x' }),
      {
        code: 'ERR_EMAIL_UNVERIFIED',
        message: 'identity email is not verified',
      },
    );
    assert.equal(metrics.events.length, eventsBefore);
    assert.equal(gateway.canWrite('team-a', person('ann@example.com', false)), false);
  });

  it('refuses an unknown world with the reference text', async () => {
    await assert.rejects(gateway.read('team-z', { verb: 'FETCH', path: '/' }), (error: unknown) => {
      assert.ok(error instanceof WorldGatewayError);
      assert.equal(error.code, 'ERR_WORLD_NOT_FOUND');
      assert.equal(
        error.message,
        'broker: unknown world "team-z" (not in broker config; known worlds: team-a, team-b)',
      );
      return true;
    });
    assert.equal(gateway.canWrite('team-z', ann), false);
  });

  it('refuses a write verb on read() and a read verb on write()', async () => {
    await assert.rejects(gateway.read('team-a', { verb: 'PUBLISH', path: '/x.md' }), TypeError);
    await assert.rejects(gateway.write('team-a', ann, { verb: 'FETCH', path: '/x.md' }), TypeError);
  });

  it('reports a token the world keeps rejecting after the configured attempts', async () => {
    // The broker edits a decoy file the world never reads, so the world never learns the token.
    const decoyWorlds = [worldYaml(teamA, '', join(root, 'decoy-tokens.toml'))];
    const decoyConfig = brokerConfig(
      join(root, 'decoy-state'),
      join(root, 'worlds-ca.pem'),
      decoyWorlds,
      'firstMintMaxAttempts: 3, firstMintInitialBackoff: 10ms, firstMintMaxBackoff: 20ms',
    );
    const decoyMetrics = recordingMetrics();
    const rejecting = await openWorldGateway(decoyConfig, { metrics: decoyMetrics });
    try {
      await assert.rejects(rejecting.write('team-a', ann, { verb: 'PUBLISH', path: '/never.md', body: 'x' }), {
        code: 'ERR_WRITE_TOKEN_REJECTED',
        message:
          'broker: world team-a rejected write token after 3 attempts (token propagation lag exceeded broker deadline)',
      });
    } finally {
      await rejecting.close();
    }
    assert.deepEqual(
      decoyMetrics.events.filter((e) => e.kind !== 'health').map((e) => (e.kind === 'finished' ? e.status : e.kind)),
      // The read-right probe (anonymous, answered not-found), then the three write attempts.
      ['not-found', 'unauthorized', 'unauthorized', 'unauthorized'],
    );
  });
});

describe('world gateway: per-world failure isolation', () => {
  let root: string;
  let up: TestWorld;
  let down: TestWorld;
  let gateway: MarkWorldGateway;
  let clock = 0;
  const metrics = recordingMetrics();

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'broker-outage-'));
    up = await startTestWorld('up');
    down = await startTestWorld('down');
    const config = brokerConfig(join(root, 'state'), await writeCaFile(root), [worldYaml(up), worldYaml(down)]);
    gateway = await openWorldGateway(config, { metrics, now: () => clock });
  });

  after(async () => {
    await gateway.close();
    await up.close();
    await down.close();
    await rm(root, { recursive: true, force: true });
  });

  it('fails fast once a stopped world refused a connection, keeps answering for the other world, shows its health, and recovers after a restart on the same port', async () => {
    const fetchRoot = (world: string) => gateway.read(world, { verb: 'LIST', path: '/' });
    assert.equal((await fetchRoot('down')).status, 'ok');
    assert.equal(gateway.health('down')?.state, 'up');
    await down.stop();

    // The first call tries the network; a dial that gets no handshake opens the circuit at once
    // (a timeout of an answering world would need the threshold of 2).
    let tried = 0;
    for (;;) {
      const error = await fetchRoot('down').then(
        () => assert.fail('a stopped world answered'),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof WorldUnavailableError);
      assert.equal(error.code, 'ERR_WORLD_UNAVAILABLE');
      if (error.reason === 'circuit-open') {
        // ...then the next call is refused without a request, saying since when, why, and when it is tried again.
        assert.equal(error.retryAfterMs, 60_000);
        assert.match(
          error.message,
          /^world "down" is down since \d{4}-\d\d-\d\dT[^ ]+ \(.+\); failing fast, the broker tries it again in 60 s\./,
        );
        break;
      }
      tried += 1;
      assert.ok(tried <= 2, 'the circuit opens within the failure threshold');
    }
    assert.equal(gateway.circuitState('down'), 'open');
    const health = gateway.health('down');
    assert.equal(health?.state, 'down');
    assert.match(health?.since ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.ok(health?.lastError !== undefined && !health.lastError.includes('127.0.0.1'), health?.lastError);
    assert.equal((await fetchRoot('up')).status, 'ok');
    assert.equal(gateway.circuitState('up'), 'closed');
    assert.equal(gateway.health('up')?.state, 'up');

    // Back on the same port; still inside the cool-down, so still failing fast.
    await down.restart();
    await assert.rejects(fetchRoot('down'), { reason: 'circuit-open' });

    // After the cool-down, one probe goes through and closes the circuit.
    clock += 60_000;
    assert.equal((await fetchRoot('down')).status, 'ok');
    assert.equal(gateway.circuitState('down'), 'closed');
    assert.equal(gateway.health('down')?.state, 'up');
    assert.equal((await fetchRoot('down')).status, 'ok');

    const failures = metrics
      .of('down')
      .filter((e) => e.kind === 'failed')
      .map((e) => (e.kind === 'failed' ? e.reason : ''));
    assert.equal(failures.length, tried);
    assert.ok(!failures.includes('circuit-open'), 'a call refused before sending is not reported as a failed request');
    const rejected = metrics
      .of('down')
      .filter((e) => e.kind === 'rejected')
      .map((e) => (e.kind === 'rejected' ? e.reason : ''));
    assert.deepEqual(rejected, ['circuit-open', 'circuit-open']);
    const states = metrics
      .of('down')
      .filter((e) => e.kind === 'health')
      .map((e) => (e.kind === 'health' ? e.health.state : ''));
    assert.deepEqual(
      states.filter((state) => state !== 'degraded'),
      ['up', 'down', 'up'],
    );
    assert.deepEqual(
      metrics.of('up').filter((e) => e.kind !== 'finished' && e.kind !== 'health'),
      [],
    );
  });
});
