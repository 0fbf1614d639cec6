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
