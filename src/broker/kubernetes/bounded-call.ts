/**
 * One client-node call that cannot outlive its bound. client-node's requests
 * carry no deadline of their own (undici's 300 s headers timeout is the only
 * end of a request the API server never answers), so every backend call is
 * made through `boundedCall`: the lease elector's with its renew deadline, the
 * Secret calls and world discovery's Service lists with `callBound` (a per-call
 * timeout, plus the caller's signal, such as the sweeper's leadership or
 * discovery stopping). Discovery's watches are long-lived by design and end by
 * their own timeoutSeconds and signal instead (bookmark-watch.ts).
 */
import { Observable, type ObservableMiddleware } from '@kubernetes/client-node';

/**
 * The longest one Secret call may wait for the API server. As long as the
 * lease's renew deadline (lease-elector.ts `defaultLeaseTimings`): a read or
 * write of one small object that takes longer is not going to be answered.
 */
export const apiCallTimeoutMs = 10_000;

/** The per-request options of a client-node call (its second argument). */
export type CallOptions = { middleware: ObservableMiddleware[]; middlewareMergeStrategy: 'append' };

/** No answer within the call's timeout. */
export class ApiCallTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer from the API server within ${timeoutMs} ms`);
    this.name = 'ApiCallTimeoutError';
  }
}

/**
 * A bound for one call: aborts after `timeoutMs` or when `signal` does. The
 * timer is Node's own (`AbortSignal.timeout`, unref'd), so it keeps no
 * process alive.
 */
export function callBound(signal?: AbortSignal, timeoutMs = apiCallTimeoutMs): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  const timedOut = new AbortController();
  // AbortSignal.timeout's reason is a DOMException whose numeric `code` would read as an HTTP status.
  timeout.addEventListener('abort', () => timedOut.abort(new ApiCallTimeoutError(timeoutMs)), { once: true });
  return signal === undefined ? timedOut.signal : AbortSignal.any([timedOut.signal, signal]);
}

/**
 * Runs one client-node call that ends when `bound` aborts: the request gets
 * the signal (client-node hands a middleware-set signal to fetch, so the
 * connection is closed), and the promise is raced against it, so that even a
 * client that ignores the signal cannot hold the caller.
 */
export async function boundedCall<T>(bound: AbortSignal, call: (options: CallOptions) => Promise<T>): Promise<T> {
  bound.throwIfAborted();
  const options: CallOptions = {
    middleware: [
      {
        pre: (context) => {
          context.setSignal(bound);
          return new Observable(Promise.resolve(context));
        },
        post: (context) => new Observable(Promise.resolve(context)),
      },
    ],
    middlewareMergeStrategy: 'append',
  };
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(bound.reason);
    bound.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([call(options), aborted]);
  } finally {
    bound.removeEventListener('abort', onAbort);
  }
}
