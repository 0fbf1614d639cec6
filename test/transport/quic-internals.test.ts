/**
 * Pins the two looks past @matrixai/quic's public API (src/transport/quic-internals.ts),
 * so a library upgrade that moves them fails here rather than silently.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { peerBidiStreamsLeft, requestedServerName, setSocketBuffers } from '../../src/transport/quic-internals.ts';
import { normalisePeerHost } from '../../src/transport/peer.ts';
import { bareQuicClient, echoListener } from './helpers.ts';

describe('@matrixai/quic internals we rely on', () => {
  it('reports the peer stream credit granted by the listener', async () => {
    const listener = await echoListener({ limits: { maxStreamsPerConnection: 7 } });
    const client = await bareQuicClient(listener.port);
    try {
      assert.equal(peerBidiStreamsLeft(client.connection), 7);
      assert.equal(requestedServerName(client.connection), 'localhost', 'a client connection knows the SNI it sent');
      const granted = setSocketBuffers(client, 1_048_576);
      assert.ok(granted !== undefined && granted > 0, 'the UDP socket behind the client is reachable');
    } finally {
      await client.destroy({ force: true });
      await listener.close();
    }
  });

  it('answers undefined for an object without the native connection', () => {
    const fake = {} as Parameters<typeof peerBidiStreamsLeft>[0];
    assert.equal(peerBidiStreamsLeft(fake), undefined);
    assert.equal(requestedServerName(fake), undefined);
    assert.equal(setSocketBuffers(fake as unknown as Parameters<typeof setSocketBuffers>[0], 1024), undefined);
  });
});

describe('peer host', () => {
  it('reports an IPv4-mapped IPv6 peer as IPv4 and leaves other addresses alone', () => {
    assert.equal(normalisePeerHost('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(normalisePeerHost('::1'), '::1');
    assert.equal(normalisePeerHost('10.1.2.3'), '10.1.2.3');
  });
});
