import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { MarkListener } from '../../src/transport/server.ts';
import type { MarkPeer } from '../../src/transport/peer.ts';
import type { MarkTransportClient } from '../../src/transport/client.ts';
import { authorityOf, concatBytes, echoListener, encoder, text, trustingClient } from './helpers.ts';

describe('one request per bidirectional stream (Mark SPEC §3)', () => {
  const peers: MarkPeer[] = [];
  let listener: MarkListener;
  let client: MarkTransportClient;

  before(async () => {
    listener = await echoListener({
      handler: async (request, peer) => {
        peers.push(peer);
        return concatBytes(encoder.encode('echo:'), request.bytes);
      },
    });
    client = await trustingClient();
  });

  after(async () => {
    await client.close();
    await listener.close();
  });

  it('returns the whole response to a request that ends at the client FIN', async () => {
    const response = await client.request(authorityOf(listener), encoder.encode('FETCH /docs/a.md\n'), {
      idempotent: true,
    });
    assert.equal(text(response), 'echo:FETCH /docs/a.md\n');
  });

  it('carries an empty request and an empty response', async () => {
    const empty = await echoListener({ handler: async (request) => request.bytes });
    try {
      const response = await client.request(authorityOf(empty), new Uint8Array(0), { idempotent: true });
      assert.equal(response.byteLength, 0);
    } finally {
      await empty.close();
    }
  });

  it('hands the handler the peer address and the SNI the client sent', async () => {
    peers.length = 0;
    await client.request(authorityOf(listener), encoder.encode('FETCH /peer\n'), { idempotent: true });
    const [peer] = peers;
    assert.equal(peer?.host, '127.0.0.1');
    assert.equal(peer?.serverName, 'localhost');
    assert.ok(Number.isInteger(peer?.port) && (peer?.port ?? 0) > 0);
  });

  it('answers more concurrent writes than the stream limit, once each, on one connection', async () => {
    peers.length = 0;
    const count = 40; // the listener allows 10 streams per connection
    const responses = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        client.request(authorityOf(listener), encoder.encode(`APPEND /log-${i}.md\n`), { idempotent: false }),
      ),
    );
    assert.deepEqual(
      responses.map(text),
      Array.from({ length: count }, (_, i) => `echo:APPEND /log-${i}.md\n`),
    );
    assert.equal(peers.length, count, 'no request was sent twice');
    assert.equal(new Set(peers.map((p) => p.port)).size, 1, 'all streams shared one pooled connection');
  });

  it('waits for the server to grant stream credit when its own stream cap is higher', async () => {
    peers.length = 0;
    const eager = await trustingClient({ maxConcurrentStreams: 64 });
    try {
      const responses = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          eager.request(authorityOf(listener), encoder.encode(`PUBLISH /p-${i}.md\n`), { idempotent: false }),
        ),
      );
      assert.equal(responses.filter((r, i) => text(r) === `echo:PUBLISH /p-${i}.md\n`).length, 60);
      assert.equal(new Set(peers.map((p) => p.port)).size, 1, 'the connection stayed usable throughout');
    } finally {
      await eager.close();
    }
  });

  it('keeps requests to different authorities on different connections', async () => {
    peers.length = 0;
    await client.request(authorityOf(listener, 'localhost'), encoder.encode('FETCH /a\n'), { idempotent: true });
    await client.request(authorityOf(listener, 'world.test'), encoder.encode('FETCH /a\n'), { idempotent: true });
    assert.deepEqual(
      peers.map((p) => p.serverName),
      ['localhost', 'world.test'],
    );
    assert.notEqual(peers[0]?.port, peers[1]?.port);
  });
});

describe('openConnections (the broker_world_connections gauge reads it)', () => {
  it('counts one connection per dialled target, shared by its requests, and none once the peer is gone', async () => {
    const listener = await echoListener({ handler: async (request) => request.bytes });
    const other = await echoListener({ handler: async (request) => request.bytes });
    const client = await trustingClient({ maxAttempts: 1 });
    try {
      assert.equal(client.openConnections, 0, 'nothing is dialled before the first request');
      await Promise.all(
        Array.from({ length: 5 }, () =>
          client.request(authorityOf(listener), encoder.encode('FETCH /a\n'), { idempotent: true }),
        ),
      );
      assert.equal(client.openConnections, 1);
      await client.request(authorityOf(other), encoder.encode('FETCH /a\n'), { idempotent: true });
      assert.equal(client.openConnections, 2);
      await other.close();
      // The failed request retires the dead connection; the count follows.
      await client
        .request(authorityOf(other), encoder.encode('FETCH /a\n'), { idempotent: true, timeoutMs: 500 })
        .catch(() => {});
      assert.equal(client.openConnections, 1);
    } finally {
      await client.close();
      await listener.close();
      await other.close().catch(() => {});
    }
    assert.equal(client.openConnections, 0, 'a closed client holds none');
  });
});
