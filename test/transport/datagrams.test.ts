/**
 * Large datagrams only where the path is loopback (src/transport/datagrams.ts):
 * a listener on every interface or a client dialing another host keeps the
 * library's default, so nothing larger than a real network's MTU is ever sent.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { datagramSettings, isLoopbackHost, loopbackDatagramBytes } from '../../src/transport/datagrams.ts';
import { encoder, text, trustingClient, authorityOf, echoListener } from './helpers.ts';

describe('datagram settings', () => {
  it('treats only loopback addresses and localhost as loopback', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', '::1', 'localhost', '::ffff:127.0.0.1']) {
      assert.equal(isLoopbackHost(host), true, host);
    }
    for (const host of ['::', '0.0.0.0', '10.0.0.5', 'world.team-a.svc', '2001:db8::1', '::ffff:10.0.0.1']) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });

  it('keeps the default datagram size off loopback and reads in large chunks everywhere', () => {
    const remote = datagramSettings('10.0.0.5');
    assert.equal(remote.maxSendUdpPayloadSize, undefined);
    assert.equal(remote.maxRecvUdpPayloadSize, undefined);
    assert.ok((remote.readableChunkSize ?? 0) > 4096);
    const local = datagramSettings('127.0.0.1');
    assert.equal(local.maxSendUdpPayloadSize, loopbackDatagramBytes);
    assert.equal(local.maxRecvUdpPayloadSize, loopbackDatagramBytes);
  });

  it('moves a 3 MiB response intact over a loopback listener', async () => {
    const big = new Uint8Array(3 * 1_048_576).map((_, i) => i % 253);
    const listener = await echoListener({ handler: async () => big, limits: { requestTimeoutMs: 60_000 } });
    const client = await trustingClient({ requestTimeoutMs: 60_000 });
    try {
      const answer = await client.request(authorityOf(listener), encoder.encode('FETCH /big.md\n'), {
        idempotent: true,
      });
      assert.equal(answer.byteLength, big.byteLength);
      assert.ok(Buffer.from(answer).equals(Buffer.from(big)), text(answer.subarray(0, 16)));
    } finally {
      await client.close();
      await listener.close();
    }
  });
});
