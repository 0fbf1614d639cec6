import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sendWithFirstMintRetry, type FirstMintPolicy } from '../../../src/broker/worlds/index.ts';
import type { MarkResponse } from '../../../src/protocol/response.ts';

const answer = (status: string): MarkResponse => ({ status, metadata: {}, body: new Uint8Array(0) });
const policy: FirstMintPolicy = { maxAttempts: 6, initialBackoffMs: 250, maxBackoffMs: 1_000 };

/** A world that answers `unauthorized` `rejections` times, then `created`; records what it saw. */
function world(rejections: number) {
  const tokens: string[] = [];
  const waits: number[] = [];
  let provisions = 0;
  return {
    tokens,
    waits,
    provisions: () => provisions,
    steps: {
      send: async (token: string) => {
        tokens.push(token);
        return answer(tokens.length > rejections ? 'created' : 'unauthorized');
      },
      reprovision: async () => `token-${++provisions}`,
      wait: async (ms: number) => {
        waits.push(ms);
      },
    },
  };
}

describe('first-mint retry loop (Go broker dispatchWithAuth)', () => {
  it('returns the first answer that is not unauthorized, without waiting', async () => {
    const w = world(0);
    assert.equal((await sendWithFirstMintRetry('token-0', policy, w.steps))?.status, 'created');
    assert.deepEqual(w.tokens, ['token-0']);
    assert.deepEqual(w.waits, []);
  });

  it('passes other world statuses through as answers', async () => {
    const steps = { send: async () => answer('conflict'), reprovision: async () => assert.fail('no re-provision') };
    assert.equal((await sendWithFirstMintRetry('t', policy, steps))?.status, 'conflict');
  });

  it('backs off from the initial delay, doubling up to the maximum', async () => {
    const w = world(5);
    assert.equal((await sendWithFirstMintRetry('token-0', policy, w.steps))?.status, 'created');
    assert.deepEqual(w.waits, [250, 500, 1_000, 1_000, 1_000]);
  });

  it('re-provisions on the first unauthorized only and sends the new token from then on', async () => {
    const w = world(3);
    await sendWithFirstMintRetry('token-0', policy, w.steps);
    assert.equal(w.provisions(), 1);
    assert.deepEqual(w.tokens, ['token-0', 'token-1', 'token-1', 'token-1']);
  });

  it('gives up after the configured number of sends', async () => {
    const w = world(100);
    assert.equal(await sendWithFirstMintRetry('token-0', policy, w.steps), null);
    assert.equal(w.tokens.length, 6);
  });

  it('sends at least once when maxAttempts is below one', async () => {
    const w = world(100);
    assert.equal(await sendWithFirstMintRetry('token-0', { ...policy, maxAttempts: 0 }, w.steps), null);
    assert.equal(w.tokens.length, 1);
  });

  it('never retries a transport failure', async () => {
    let sends = 0;
    const failure = new Error('connection lost');
    const steps = {
      send: async () => {
        sends += 1;
        throw failure;
      },
      reprovision: async () => 't',
    };
    await assert.rejects(sendWithFirstMintRetry('t', policy, steps), failure);
    assert.equal(sends, 1);
  });

  it('stops waiting when the caller aborts', async () => {
    const controller = new AbortController();
    const steps = {
      send: async () => {
        controller.abort();
        return answer('unauthorized');
      },
      reprovision: async () => 't',
      signal: controller.signal,
    };
    await assert.rejects(sendWithFirstMintRetry('t', policy, steps), { name: 'AbortError' });
  });
});
