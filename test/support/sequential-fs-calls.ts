/**
 * The longest chain of filesystem calls `work` makes one after another: each
 * call counted here was started only after the previous one's result came
 * back. Every such result waits for a turn of the event loop, so this is the
 * number of turns the work needs at least, however fast the disk, and it is
 * what another client's requests stretch (test/security/listing-starvation.test.ts).
 *
 * Counted with async_hooks, no timing: a filesystem request (FSREQPROMISE,
 * FSREQCALLBACK) is one deeper than the code that started it; a promise
 * resolved while some code runs carries that code's depth, and the reaction
 * it triggers (an `await` resuming, a `.then`) runs at that depth. Other
 * resources (timers, immediates) keep the depth of the code that made them.
 * https://nodejs.org/api/async_hooks.html
 */
import { createHook, executionAsyncId } from 'node:async_hooks';

export async function sequentialFsCalls(work: () => Promise<unknown>): Promise<number> {
  const parentPromise = new Map<number, number>();
  const depth = new Map<number, number>();
  const resolvedAtDepth = new Map<number, number>();
  let deepest = 0;
  const running = () => depth.get(executionAsyncId()) ?? 0;
  const hook = createHook({
    init(id, type, triggerId) {
      if (type === 'PROMISE') parentPromise.set(id, triggerId);
      else if (type.startsWith('FSREQ')) {
        const own = running() + 1;
        depth.set(id, own);
        deepest = Math.max(deepest, own);
      } else depth.set(id, running());
    },
    before(id) {
      const parent = parentPromise.get(id);
      if (parent !== undefined) depth.set(id, resolvedAtDepth.get(parent) ?? depth.get(parent) ?? 0);
    },
    promiseResolve(id) {
      resolvedAtDepth.set(id, running());
    },
  });
  hook.enable();
  try {
    await work();
  } finally {
    hook.disable();
  }
  return deepest;
}
