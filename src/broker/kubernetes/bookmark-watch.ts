/**
 * The client library's Watch, asking for bookmarks (`allowWatchBookmarks`)
 * with a server-side deadline (`timeoutSeconds`), and tied to a stop signal.
 *
 * A bookmark carries only a newer resourceVersion; remembering it keeps a
 * reconnecting watch inside the API server's event window on a quiet
 * resource, so it resumes instead of getting 410 Gone and relisting.
 *
 * client-node ends a watch that receives nothing for `requestTimeoutMs`
 * (30 s), and the API server sends bookmarks only about once a minute, and
 * just before a watch's `timeoutSeconds` deadline. Without a deadline a quiet
 * watch was cut every 30 s before any bookmark came, and reconnected from a
 * resourceVersion that never advanced until it fell out of the event window.
 * So each watch asks for a deadline below the client's timeout: the server
 * sends a bookmark, ends the watch, and the informer resumes from it.
 *
 * The stop signal closes the gap in the library informer's `stop()`: a watch
 * whose request is still connecting (or that starts after a list that was in
 * flight when `stop()` ran) is not known to the informer yet and would stay
 * open. Here it is aborted, or never opened.
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';

type WatchArgs = Parameters<Watch['watch']>;

/** client-node's `Watch.requestTimeoutMs` (watch.js), in seconds. */
const clientInactivityTimeoutSeconds = 30;

/**
 * How long the API server keeps each watch open: under client-node's
 * inactivity timeout. Not an option: test/kubernetes/world-discovery.test.ts
 * sees the deadline pass by shortening the fake API server's seconds instead.
 */
const watchTimeoutSeconds = clientInactivityTimeoutSeconds - 5; // 25 s

export class BookmarkWatch extends Watch {
  readonly #stop: AbortSignal;

  constructor(config: KubeConfig, stop: AbortSignal) {
    super(config);
    this.#stop = stop;
  }

  override async watch(
    path: WatchArgs[0],
    queryParams: WatchArgs[1],
    callback: WatchArgs[2],
    done: WatchArgs[3],
  ): Promise<AbortController> {
    const stop = this.#stop;
    if (stop.aborted) {
      queueMicrotask(() => done(null));
      return new AbortController();
    }
    let controller: AbortController | undefined;
    const onStop = () => controller?.abort();
    const finished: WatchArgs[3] = (error) => {
      stop.removeEventListener('abort', onStop);
      done(error);
    };
    const query = { ...queryParams, allowWatchBookmarks: true, timeoutSeconds: watchTimeoutSeconds };
    controller = await super.watch(path, query, callback, finished);
    if (stop.aborted) controller.abort();
    else stop.addEventListener('abort', onStop, { once: true });
    return controller;
  }
}
