/**
 * Runs `visit` over a queue that may grow while it runs, with at most
 * `workers` visits in flight and at most `maxItems` started. Resolves when
 * the queue is drained (or on abort, once in-flight visits settle); rejects
 * on the first visit that throws.
 */
export function runPool<T>(
  queue: T[],
  visit: (item: T) => Promise<void>,
  options: { workers: number; maxItems?: number; signal?: AbortSignal | undefined },
): Promise<void> {
  const workers = Math.max(1, options.workers);
  const maxItems = options.maxItems ?? Number.POSITIVE_INFINITY;
  return new Promise((resolve, reject) => {
    let next = 0;
    let active = 0;
    let failed = false;
    const pump = () => {
      while (!failed && active < workers && next < queue.length && next < maxItems && !options.signal?.aborted) {
        const item = queue[next++]!;
        active++;
        visit(item).then(
          () => {
            active--;
            pump();
          },
          (error: unknown) => {
            failed = true;
            reject(error);
          },
        );
      }
      if (active === 0 && !failed) resolve();
    };
    pump();
  });
}
