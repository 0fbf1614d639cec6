/**
 * Threat: probing and exhausting a world directly over QUIC. A caller without a
 * read token must not learn folder names inside a protected tree.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { QUICClient } from '@matrixai/quic';
import { clientCryptoOps, silentQuicLogger } from '../../src/transport/quic-support.ts';
import { readBounded, writeAndFinish } from '../../src/transport/stream-io.ts';
import type { TlsKeyPair } from '../../src/transport/tls.ts';
import { startWorldServer } from '../../src/world/world-server.ts';
import { startWorldProcess } from '../cli/cli-process.ts';
import { startWorldFixture, testTls, text, type WorldFixture } from '../world/world-fixture.ts';

describe('security: world LOOKUP inside a protected tree', () => {
  let world: WorldFixture;
  before(async () => {
    world = await startWorldFixture({
      tokens: [
        { label: 'writer', paths: ['/**'], operations: ['publish'] },
        { label: 'reader', paths: ['/private/**'], operations: ['read'] },
      ],
    });
    await world.local('PUBLISH', '/private/plans/q3.md', { auth: world.tokens.writer! }, '# Q3\n');
  });
  after(() => world.close());

  it('answers an existing and a missing protected folder alike', async () => {
    const existing = await world.call('LOOKUP', '/private/plans', { query: 'q3' });
    const missing = await world.call('LOOKUP', '/private/nothing-here', { query: 'q3' });
    assert.equal(existing.status, missing.status);
    assert.equal(existing.status, 'unauthorized');
    assert.equal(text(existing), text(missing));
  });

  it('still answers a reader, and a missing folder outside the tree as not-found', async () => {
    const reader = await world.call('LOOKUP', '/private/plans', { query: 'q3', auth: world.tokens.reader! });
    assert.equal(reader.status, 'ok');
    assert.equal(reader.metadata.matches, '1');
    assert.equal((await world.call('LOOKUP', '/elsewhere', { query: 'q3' })).status, 'not-found');
  });
});

/**
 * Threat: one address exhausting a world's connections or memory. Both
 * attacks succeeded before the per-IP bounds of src/transport/peer-holdings.ts
 * (checked by running this file with them removed): all 60 idle connections
 * were kept, and 60 half-sent 1 MiB PUBLISH requests from one address raised
 * the world process's resident memory by 149 MiB (30 of them by 78 MiB), in
 * proportion to the flood; with the bounds it stays near 60-75 MiB whatever
 * the flood's size, since only 16 connections and 8 requests' worth of bytes
 * are held for the address.
 *
 * Real QUIC sockets. The flood comes from 127.0.0.1; the world listens on
 * `::` so that ::1 is a second, innocent address.
 */
describe('security: world resources are bounded per address', () => {
  let dir: string;
  let tls: TlsKeyPair;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-world-resources-'));
    tls = await testTls();
    await writeFile(join(dir, 'cert.pem'), tls.cert);
    await writeFile(join(dir, 'key.pem'), tls.key);
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  const dial = (host: string, port: number) =>
    QUICClient.createQUICClient({
      host,
      port,
      serverName: 'localhost',
      crypto: { ops: clientCryptoOps },
      logger: silentQuicLogger(),
      config: { applicationProtos: ['mark'], verifyPeer: true, ca: tls.cert, maxIdleTimeout: 60_000 },
    });

  /** One whole FETCH on a fresh connection from `host`: the status of its answer. */
  async function fetchStatus(host: string, port: number): Promise<string> {
    const client = await dial(host, port);
    try {
      const stream = client.connection.newStream('bidi');
      const writing = writeAndFinish(stream.writable, new TextEncoder().encode('FETCH /nothing.md\n'));
      const { bytes } = await readBounded(stream.readable, 1 << 20);
      await writing;
      return /status: ([a-z-]+)/.exec(Buffer.from(bytes).toString())?.[1] ?? 'no status';
    } finally {
      await client.destroy({ force: true });
    }
  }

  it('keeps at most 16 connections from one address, and serves another address meanwhile', async () => {
    const server = await startWorldServer({
      root: join(dir, 'connections'),
      listen: { host: '::', port: 0 },
      tls,
      rateLimit: { perSecond: 0, burst: 1 },
    });
    const clients: QUICClient[] = [];
    try {
      // One after another, as an attacker keeping idle connections would open them.
      for (let i = 0; i < 60; i += 1) clients.push(await dial('127.0.0.1', server.port));
      // A refused connection is closed by the world; wait until the client side has seen every close.
      const open = async () => {
        for (let i = 0; i < 200 && clients.filter((c) => !c.connection.closed).length > 16; i += 1)
          await new Promise((resolve) => setTimeout(resolve, 50));
        return clients.filter((c) => !c.connection.closed).length;
      };
      assert.equal(await open(), 16, 'the world keeps 16 connections of the flooding address');
      assert.equal(await fetchStatus('::1', server.port), 'not-found', 'another address is served');
      for (const client of clients) await client.destroy({ force: true });
      clients.length = 0;
      // Closing them gives the address its share back.
      let status = 'refused';
      for (let i = 0; i < 100 && status !== 'not-found'; i += 1)
        status = await fetchStatus('127.0.0.1', server.port).catch(() => 'refused');
      assert.equal(status, 'not-found');
    } finally {
      for (const client of clients) await client.destroy({ force: true }).catch(() => {});
      await server.close();
    }
  });

  it('bounds the memory of 60 half-sent 1 MiB requests from one address (world in its own process)', async (t) => {
    const world = await startWorldProcess(
      [
        '--root',
        join(dir, 'memory'),
        '--listen',
        '[::]:0',
        '--tls-cert',
        join(dir, 'cert.pem'),
        '--tls-key',
        join(dir, 'key.pem'),
        '--rate-limit',
        '0',
      ],
      { signal: t.signal },
    );
    const clients: QUICClient[] = [];
    try {
      const pid = world.child.pid!;
      // Warm the world up with whole requests first, so the baseline includes what any traffic costs.
      for (let i = 0; i < 5; i += 1) assert.equal(await fetchStatus('127.0.0.1', world.port), 'not-found');
      const baseline = await residentMiB(pid);
      const chunk = new Uint8Array(64 * 1024).fill(0x61);
      let sent = 0;
      const writes: Promise<void>[] = [];
      // 60 connections of one stream each: 60 PUBLISH requests of 1 MiB, none finished (no FIN).
      for (let c = 0; c < 60; c += 1) {
        const client = await dial('127.0.0.1', world.port).catch(() => null);
        if (client === null) continue;
        clients.push(client);
        const writer = client.connection.newStream('bidi').writable.getWriter();
        writes.push(
          (async () => {
            await writer.write(new TextEncoder().encode('PUBLISH /flood.md\n'));
            for (let k = 0; k < 16; k += 1) {
              await writer.write(chunk);
              sent += chunk.byteLength;
            }
          })().catch(() => {}),
        );
      }
      // Every write either went through or was stopped by the world.
      await Promise.all(writes);
      assert.equal(await fetchStatus('::1', world.port), 'not-found', 'another address is served during the flood');
      const grown = (await residentMiB(pid)) - baseline;
      process.stdout.write(
        `# world RSS grew ${grown.toFixed(1)} MiB for 60 half-sent 1 MiB requests (${(sent / 2 ** 20).toFixed(1)} MiB accepted by the client's streams)\n`,
      );
      // Without the bounds this flood grew the world by 149 MiB; with them, 60-75 MiB.
      assert.ok(grown < 112, `world RSS grew ${grown.toFixed(1)} MiB`);
    } finally {
      for (const client of clients) await client.destroy({ force: true }).catch(() => {});
      world.child.kill('SIGTERM');
      await world.exited;
    }
  });
});

async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}
