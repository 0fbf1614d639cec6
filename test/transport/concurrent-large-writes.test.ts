/**
 * Why a client sees its stream reset with `write 0` while it writes many large
 * requests at once: the listener's per-address bound on unfinished request
 * bytes (src/transport/peer-holdings.ts) stops the requests that would take the
 * address over it (STOP_SENDING, error code 0) and answers them `rate-limited`.
 * It is not the QUIC library dropping streams: the same writes with the bound
 * out of reach all arrive whole.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readBounded } from '../../src/transport/stream-io.ts';
import { bareQuicClient, echoListener, encoder, text } from './helpers.ts';

const streams = 8;
const chunk = new Uint8Array(64 * 1024).fill(0x61);
const chunksPerRequest = 16;
const head = encoder.encode('PUBLISH /large.md\n');
const requestBytes = head.byteLength + chunk.byteLength * chunksPerRequest;

type Outcome = { writeError: string | null; answer: string };

/** Eight 1 MiB requests written at once, in 64 KiB writes, on one connection. */
async function writeAtOnce(maxPendingBytesPerIp: number): Promise<Outcome[]> {
  const listener = await echoListener({
    limits: { maxPendingBytesPerIp, ratePerSecond: 0 },
    handler: async (request) => encoder.encode(`read ${request.bytes.byteLength} bytes`),
  });
  const client = await bareQuicClient(listener.port, { maxIdleTimeout: 60_000 });
  try {
    return await Promise.all(
      Array.from({ length: streams }, async () => {
        const stream = client.connection.newStream('bidi');
        const reading = readBounded(stream.readable, 1 << 20);
        const writer = stream.writable.getWriter();
        let writeError: string | null = null;
        try {
          await writer.write(head);
          for (let k = 0; k < chunksPerRequest; k++) await writer.write(chunk);
          await writer.close();
        } catch (error) {
          writeError = (error as Error).message;
        }
        return { writeError, answer: text((await reading).bytes) };
      }),
    );
  } finally {
    await client.destroy({ force: true });
    await listener.close();
  }
}

describe('many concurrent large writes on one connection', () => {
  it('are reset with write error 0 by the per-address bound, and answered rate-limited', async () => {
    const outcomes = await writeAtOnce(512 * 1024);
    const stopped = outcomes.filter((o) => o.writeError !== null);
    assert.ok(stopped.length > 0, 'the bound stops at least one request');
    for (const outcome of stopped) {
      assert.equal(outcome.writeError, 'write 0');
      assert.match(outcome.answer, /^---\nstatus: rate-limited\n/);
    }
    for (const outcome of outcomes.filter((o) => o.writeError === null))
      assert.equal(outcome.answer, `read ${requestBytes} bytes`);
  });

  it('all arrive whole when the bound is out of reach', async () => {
    const outcomes = await writeAtOnce(64 * 1024 * 1024);
    assert.deepEqual(
      outcomes,
      Array.from({ length: streams }, () => ({ writeError: null, answer: `read ${requestBytes} bytes` })),
    );
  });
});
