import { Semaphore } from './semaphore.ts';

/**
 * Runs `visit` over a queue that may grow while it runs, with at most
 * `workers` visits in flight and at most `maxItems` started. Resolves when
 * the queue is drained (or on abort, once in-flight visits settle); rejects
 * on the first visit that throws, starting no other.
 */
export async function runPool<T>(
  queue: T[],
  visit: (item: T) => Promise<void>,
  options: { workers: number; maxItems?: number; signal?: AbortSignal | undefined },
): Promise<void> {
  const slots = new Semaphore(Math.max(1, options.workers));
  const maxItems = options.maxItems ?? Number.POSITIVE_INFINITY;
  const failed = new AbortController();
  const stop = options.signal ? AbortSignal.any([options.signal, failed.signal]) : failed.signal;
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let next = 0;
  while (!stop.aborted) {
    if (next < queue.length && next < maxItems) {
      try {
        await slots.acquire(stop);
      } catch {
        break;
      }
      const task: Promise<void> = visit(queue[next++]!)
        .catch((error: unknown) => {
          failure ??= { error };
          failed.abort();
        })
        .finally(() => {
          slots.release();
          running.delete(task);
        });
      running.add(task);
    } else if (running.size > 0) await Promise.race(running);
    else break;
  }
  if (failure === undefined) await Promise.all(running);
  if (failure !== undefined) throw failure.error;
}

/** One item's outcome in `boundedMap`. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * `fn` over every item with at most `concurrency` running at once, results in
 * item order. A rejected call becomes that item's `{ error }`; it never stops
 * the others (one world's failure must not fail a fan-out).
 */
export function boundedMap<I, T>(
  items: readonly I[],
  concurrency: number,
  fn: (item: I) => Promise<T>,
): Promise<Settled<T>[]> {
  const slots = new Semaphore(Math.max(1, concurrency));
  return Promise.all(
    items.map(async (item): Promise<Settled<T>> => {
      await slots.acquire();
      try {
        return { ok: true, value: await fn(item) };
      } catch (error) {
        return { ok: false, error };
      } finally {
        slots.release();
      }
    }),
  );
}
