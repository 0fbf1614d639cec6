/**
 * The Go broker's first-mint retry (`dispatchWithAuth`): a world reloads its
 * tokens.toml some time after the broker wrote the new hash, and answers
 * `unauthorized` until then. So a write answered `unauthorized` is sent again
 * after a backoff (initial, doubling, capped), up to `maxAttempts` sends; the
 * first `unauthorized` also re-provisions the token (which re-syncs a world
 * file that lost or changed the entry). Retrying is safe: the world refused
 * the write. A transport failure is never retried here (a write is sent at
 * most once per answer), and the caller's signal cancels the waits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Status } from '../../protocol/status.ts';
import type { MarkResponse } from '../../protocol/response.ts';

export type FirstMintPolicy = { maxAttempts: number; initialBackoffMs: number; maxBackoffMs: number };

export type FirstMintSteps = {
  /** Sends the write with `token`; throws on transport failure. */
  send(token: string): Promise<MarkResponse>;
  /** Drops the cached token and provisions again. */
  reprovision(): Promise<string>;
  signal?: AbortSignal;
  wait?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
};

/** The world's answer, or null when every attempt was `unauthorized`. */
export async function sendWithFirstMintRetry(
  firstToken: string,
  policy: FirstMintPolicy,
  steps: FirstMintSteps,
): Promise<MarkResponse | null> {
  const wait = steps.wait ?? ((ms, signal) => sleep(ms, undefined, signal === undefined ? {} : { signal }));
  const attempts = Math.max(1, policy.maxAttempts);
  let token = firstToken;
  let backoff = policy.initialBackoffMs;
  let reprovisioned = false;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) {
      await wait(backoff, steps.signal);
      backoff = Math.min(backoff * 2, policy.maxBackoffMs);
    }
    const response = await steps.send(token);
    if (response.status !== Status.Unauthorized) return response;
    if (!reprovisioned) {
      reprovisioned = true;
      token = await steps.reprovision();
    }
  }
  return null;
}
