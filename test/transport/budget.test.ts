import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TimeoutError } from '../../src/transport/errors.ts';
import type { MarkListener } from '../../src/transport/server.ts';
import { authorityOf, echoListener, encoder, gate, text, trustingClient } from './helpers.ts';

describe('a request budget bounds every attempt of a read', () => {
  let listener: MarkListener;
  const never = gate();
  let requests = 0;
  /** How many of the next requests never get an answer. */
  let stalls = 0;

  before(async () => {
    listener = await echoListener({
      handler: async (request) => {
        requests++;
        if (stalls > 0) {
          stalls--;
          await never.promise;
        }
        return request.bytes;
      },
    });
  });
  after(async () => {
    never.open();
    await listener.close();
  });

  it('stops retrying once the budget is spent, and reports the budget as the timeout', async () => {
    requests = 0;
    stalls = Number.POSITIVE_INFINITY;
    const client = await trustingClient({ requestTimeoutMs: 1500, budgetMs: 3500, retryDelayMs: 10 });
    try {
      await assert.rejects(
        client.request(authorityOf(listener), encoder.encode('FETCH /x\n'), { idempotent: true }),
        (error: unknown) => error instanceof TimeoutError && error.timeoutMs === 3500,
      );
      // 1500 + 1500 + what is left (< 500): never the five attempts of an unbudgeted client.
      assert.ok(requests <= 3, `${requests} attempts`);
    } finally {
      await client.close();
    }
  });

  it('gives a retry its own attempt timeout when the budget has room', async () => {
    requests = 0;
    stalls = 1;
    const client = await trustingClient({ requestTimeoutMs: 1500, budgetMs: 60_000, retryDelayMs: 10 });
    try {
      const answer = await client.request(authorityOf(listener), encoder.encode('FETCH /y\n'), { idempotent: true });
      assert.equal(text(answer), 'FETCH /y\n');
      assert.ok(requests >= 2, `${requests} attempts`);
    } finally {
      await client.close();
    }
  });
});
