/**
 * Threat: a watcher that keeps its QUIC connection open but never reads its
 * WATCH stream. Once the stream's flow-control credit (the window the client
 * itself advertises) is spent, the world's next block write cannot complete;
 * the watch then keeps its slot for as long as the connection lives, and the
 * heartbeat that rechecks the caller's read token never runs, so a revoked
 * token keeps its watch too.
 *
 * Both attacks below succeeded before block and heartbeat writes were bounded
 * by the heartbeat interval (checked by running this file against the world
 * without the bound): the stalled watch held its address's only slot, so a
 * new watch from that address was refused `rate-limited` however long we
 * waited, and the world's open-watch count stayed at 1 after the token was
 * revoked.
 *
 * A real world server over QUIC. The attacker is a raw @matrixai/quic client
 * that advertises a 4 KiB stream window (any client may choose its window),
 * so a few long-path publishes fill it, and pings its connection so the
 * world's 30 s idle timeout does not close it (without the pings the idle
 * timeout ended the watch after 30 s, which is why an attempt without them
 * seemed to pass). The innocent re-watch comes from the same address on
 * another connection, through the repo's MarkClient.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { QUICClient, type QUICStream } from '@matrixai/quic';
import { encodeRequest } from '../../src/protocol/request.ts';
import { WatchDecoder } from '../../src/protocol/watch.ts';
import { clientCryptoOps, silentQuicLogger } from '../../src/transport/quic-support.ts';
import { writeAndFinish } from '../../src/transport/stream-io.ts';
import { startWorldFixture, testTls, tokensToml, type WorldFixture } from '../world/world-fixture.ts';

/** Short, so the bound (one heartbeat interval) passes quickly. */
const heartbeatMs = 200;
/** What the attacker's client advertises per stream: a few event blocks fill it. */
const attackerStreamWindow = 4096;

/** A path of ~3 KB (12 segments of 250 bytes: each under the 255-byte file-name bound). */
const longPath = (i: number) => `${`/${'d'.repeat(250)}`.repeat(12)}/${i}.md`;

describe('security: a WATCH that is never read does not keep its slot', () => {
  let world: WorldFixture | undefined;
  let attacker: QUICClient | undefined;
  afterEach(async () => {
    await attacker?.destroy({ force: true });
    await world?.close();
    attacker = undefined;
    world = undefined;
  });

  /** Opens WATCH `path` on a connection of its own, reads the acknowledgement only, and never reads again. */
  async function stalledWatch(w: WorldFixture, path: string, auth?: string): Promise<QUICStream> {
    attacker = await QUICClient.createQUICClient({
      host: '127.0.0.1',
      port: w.server.port,
      serverName: 'localhost',
      crypto: { ops: clientCryptoOps },
      logger: silentQuicLogger(),
      config: {
        applicationProtos: ['mark'],
        verifyPeer: true,
        ca: (await testTls()).cert,
        maxIdleTimeout: 60_000,
        // Pings keep the connection alive past the world's idle timeout, as a patient attacker's would.
        keepAliveIntervalTime: 1_000,
        initialMaxStreamDataBidiLocal: attackerStreamWindow,
      },
    });
    const stream = attacker.connection.newStream('bidi');
    const metadata: Record<string, string> = auth === undefined ? {} : { auth };
    await writeAndFinish(stream.writable, encodeRequest({ verb: 'WATCH', path, metadata, body: new Uint8Array(0) }));
    const reader = stream.readable.getReader();
    const decoder = new WatchDecoder();
    decoder.push((await reader.read()).value ?? new Uint8Array(0));
    reader.releaseLock();
    assert.equal(decoder.next()?.status, 'ok', 'the watch is acknowledged');
    return stream;
  }

  /** The status of a new watch's first block, from the fixture's own client (same address, another connection). */
  async function rewatchStatus(w: WorldFixture, path: string, auth?: string): Promise<string> {
    const controller = new AbortController();
    const blocks = w.client.watch(w.authority, { path, ...(auth ? { auth } : {}) }, controller.signal);
    try {
      return (await blocks.next()).value!.status;
    } finally {
      // Returning the generator, not only aborting, gives the client's stream lease back (src/transport/client.ts).
      controller.abort();
      await blocks.return(undefined);
    }
  }

  /** Publishes far more event bytes than the attacker's window holds. */
  async function fillTheWindow(w: WorldFixture, folder: string): Promise<void> {
    for (let i = 0; i < 12; i += 1) {
      const response = await w.local('PUBLISH', `${folder}${longPath(i)}`, { auth: w.tokens.writer! }, '# x\n');
      assert.equal(response.status, 'created');
    }
  }

  /** Polls the world's open-watch count until it is `count`, for at most 30 s (a loaded machine). */
  async function openWatchesReach(w: WorldFixture, count: number): Promise<number> {
    const feed = w.server.world.context.changes!;
    for (let waited = 0; feed.open !== count && waited < 30_000; waited += heartbeatMs / 4)
      await new Promise((resolve) => setTimeout(resolve, heartbeatMs / 4));
    return feed.open;
  }

  /** Reads what the stalled stream still holds: it must end in a reset, never a FIN that passes for a clean end. */
  async function endOf(stream: QUICStream): Promise<string> {
    const reader = stream.readable.getReader();
    try {
      for (;;) if ((await reader.read()).done) return 'finished';
    } catch {
      return 'reset';
    } finally {
      reader.releaseLock();
    }
  }

  it('ends a watch whose reader stopped, and gives its address the slot back', async () => {
    world = await startWorldFixture({ world: { watch: { heartbeatMs, maxWatches: 4, maxWatchesPerAddress: 1 } } });
    const stream = await stalledWatch(world, '/');
    assert.equal(await rewatchStatus(world, '/'), 'rate-limited', 'the address holds its one slot');
    await fillTheWindow(world, '');
    assert.equal(await openWatchesReach(world, 0), 0, 'the stalled watch gave its slot back');
    assert.equal(await rewatchStatus(world, '/'), 'ok', 'the address may watch again');
    assert.equal(await endOf(stream), 'reset');
  });

  it('ends a stalled watch whose token was revoked', async () => {
    world = await startWorldFixture({
      tokens: [
        { label: 'writer', paths: ['/**'], operations: ['publish'] },
        { label: 'reader', paths: ['/secret/**'], operations: ['read'] },
      ],
      world: { watch: { heartbeatMs, maxWatches: 4, maxWatchesPerAddress: 1 } },
    });
    const stream = await stalledWatch(world, '/secret/', world.tokens.reader!);
    await fillTheWindow(world, '/secret');
    // Revoke the reader: the tokens file keeps only the writer (the world reloads it on change).
    const writerOnly = [{ label: 'writer', paths: ['/**'], operations: ['publish'], raw: world.tokens.writer! }];
    await writeFile(join(world.dir, 'tokens.toml'), tokensToml(writerOnly));
    assert.equal(await openWatchesReach(world, 0), 0, 'the revoked token no longer holds a watch');
    assert.equal(await endOf(stream), 'reset');
  });
});
