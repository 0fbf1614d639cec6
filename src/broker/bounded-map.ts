/**
 * Worlds one tool call asks at once (mark_lookup_all, mark_search, match=body).
 * Each world is its own server on its own connection and sees one request per
 * phase of a call, so the bound is on what one call holds open in the broker
 * (streams, response buffers), not on any world's load. At 8 a fan-out over 30
 * worlds ran in four waves, each as slow as its slowest world (bench/fan-out.ts).
 */
export const worldFanOut = 64;

/**
 * `fn` over every item with at most `concurrency` running at once, results in
 * item order. A rejected call becomes that item's `{ error }`; it never stops
 * the others (one world's failure must not fail a fan-out).
 */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function boundedMap<I, T>(
  items: readonly I[],
  concurrency: number,
  fn: (item: I) => Promise<T>,
): Promise<Settled<T>[]> {
  const results = new Array<Settled<T>>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { ok: true, value: await fn(items[index]!) };
      } catch (error) {
        results[index] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
