/**
 * The client library's Watch, asking for bookmarks (`allowWatchBookmarks`)
 * and tied to a stop signal.
 *
 * A bookmark carries only a newer resourceVersion; remembering it keeps a
 * reconnecting watch inside the API server's event window on a quiet
 * resource, so it resumes instead of getting 410 Gone and relisting.
 *
 * The stop signal closes the gap in the library informer's `stop()`: a watch
 * whose request is still connecting (or that starts after a list that was in
 * flight when `stop()` ran) is not known to the informer yet and would stay
 * open. Here it is aborted, or never opened.
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';

type WatchArgs = Parameters<Watch['watch']>;

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
    controller = await super.watch(path, { ...queryParams, allowWatchBookmarks: true }, callback, finished);
    if (stop.aborted) controller.abort();
    else stop.addEventListener('abort', onStop, { once: true });
    return controller;
  }
}
