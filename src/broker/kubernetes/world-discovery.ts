/**
 * Live world discovery: an informer (list, then watch from the list's
 * resourceVersion) on Services labelled `demarkus.io/world`, cluster-wide or
 * in the configured namespaces, feeding a DiscoveryIndex. The library's
 * informer relists by itself when the watch answers 410 Gone; any other
 * failure stops it, and we start it again after a backoff (1 s doubling to
 * 30 s, back to 1 s once events flow). A relist emits deletes for Services
 * that vanished while we were not watching.
 */
import { CoreV1Api, ListWatch, type KubeConfig, type V1Service } from '@kubernetes/client-node';
import { systemClock, type Clock } from './clock.ts';
import { BookmarkWatch } from './bookmark-watch.ts';
import { apiFailure } from './errors.ts';
import { boundedCall, callBound } from './bounded-call.ts';
import { DiscoveryIndex, type DiscoveredWorldSink, type DiscoveryIssue } from './discovery-index.ts';
import { ServedNamesRecord, servedNamesDocument } from './served-names.ts';
import { worldFromService, worldLabelSelector } from './service-world.ts';
import type { StateDocumentStore } from '../state/index.ts';

export type WorldDiscoveryOptions = {
  kubeConfig: KubeConfig;
  /** `'all'` watches every namespace (needs a ClusterRole); otherwise one informer per namespace (a Role in each). */
  namespaces: 'all' | readonly string[];
  sink: DiscoveredWorldSink;
  /** Names from `worlds[]`: these always come from the config. */
  configuredWorlds: Iterable<string>;
  /**
   * The configured worlds' dial addresses and public URL authorities
   * (`worldAuthorities`, world-aliases.ts): a Service whose public-url
   * annotation is one of them is refused (service-world.ts).
   */
  configuredAuthorities?: Iterable<string>;
  clusterDomain?: string;
  restartBackoff?: { initialMs: number; maxMs: number };
  /** Passed to the library informer for its own watch-reconnect pauses. */
  watchReconnectDelay?: (ms: number) => Promise<void>;
  clock?: Clock;
  onIssue?: (issue: DiscoveryIssue) => void;
  /** Services ignored because another Service serves their world name (discovery-index.ts), on every change. */
  onConflicts?: (count: number) => void;
  /** `discovery.maxWorlds`: names served from Services at most (discovery-index.ts). */
  maxWorlds?: number;
  /** Services refused because `maxWorlds` names are served, on every change. */
  onRefused?: (count: number) => void;
  /**
   * A failed list, watch, or read or write of the served-names record:
   * `what` names what failed and what discovery does instead (it lists again
   * after a pause, or writes the record again on the next change).
   */
  onError?: (what: string, error: unknown) => void;
  /**
   * The broker state the replicas share: they record there which Service
   * serves each name, and a replica starting during a conflict on a name
   * serves the recorded one (served-names.ts). Absent, age decides.
   */
  state?: StateDocumentStore;
};

export const defaultRestartBackoff = { initialMs: 1_000, maxMs: 30_000 } as const;

/**
 * `starting`: the informer's current start (a list, then opening the watch),
 * awaited by `stop()`. `attempt`: whether that start has failed so far, set by
 * the informer's error handler. `listed`: a start has gone through, so the
 * scope's Services are in the index.
 */
type Scope = {
  name: string;
  informer: ListWatch<V1Service>;
  backoffMs: number;
  starting: Promise<void>;
  attempt: { failed: boolean };
  listed: boolean;
};

export class WorldDiscovery {
  readonly #options: WorldDiscoveryOptions;
  readonly #index: DiscoveryIndex;
  readonly #scopes: Scope[] = [];
  readonly #stopping = new AbortController();
  readonly #clock: Clock;
  readonly #served: ServedNamesRecord | undefined;
  /**
   * Names this replica published before its view was whole and serves from
   * another Service than the record names: it chose them from part of the
   * claimants (a relist applies its Services one by one, so the first listed
   * takes a free name), and keeps them while they claim it
   * (discovery-index.ts). The recorded Service takes its name back when a
   * relist brings it, but the record may have no entry to correct a choice
   * with (it could not be read, or a write to it failed), and moving on from
   * such a choice by age could record a Service the others do not serve. So
   * it never records another Service for these; once no Service claims one,
   * that is recorded, and the next choice comes from a whole view.
   */
  #chosenWhilePartial = new Set<string>();
  /** The record's writes, one after another, so that two quick changes of one name land in their order. */
  #recording: Promise<void> = Promise.resolve();

  constructor(options: WorldDiscoveryOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#served = options.state === undefined ? undefined : new ServedNamesRecord(options.state);
    this.#index = new DiscoveryIndex({
      sink: options.sink,
      configuredWorlds: options.configuredWorlds,
      ...(options.onIssue ? { onIssue: options.onIssue } : {}),
      ...(options.onConflicts ? { onConflicts: options.onConflicts } : {}),
      ...(options.maxWorlds === undefined ? {} : { maxWorlds: options.maxWorlds }),
      ...(options.onRefused ? { onRefused: options.onRefused } : {}),
      onServe: (name, service) => this.#record(name, service),
    });
    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    const namespaces = options.namespaces === 'all' ? [null] : [...new Set(options.namespaces)];
    for (const namespace of namespaces) this.#scopes.push(this.#makeScope(core, namespace));
  }

  /**
   * Lists and starts watching in every scope; resolves after the first attempt
   * of each (failures retry in the background). Worlds are published once all
   * first lists are in, so a contested name goes to its recorded or oldest
   * Service rather than to whichever list answered first. The record is read
   * first, so that it is not older than the Services it ranks.
   */
  async start(): Promise<void> {
    this.#index.remember(await this.#readServed('at start-up, age decides instead'));
    try {
      await Promise.all(this.#scopes.map((scope) => (scope.starting = this.#startScope(scope))));
    } finally {
      this.#index.listed();
    }
  }

  /**
   * The replicas' record; when it cannot be read, none (age decides, as
   * without shared state). `instead`: what happens then, for the log.
   */
  async #readServed(instead: string): Promise<ReadonlyMap<string, string>> {
    try {
      return (await this.#served?.read()) ?? new Map();
    } catch (error) {
      this.#options.onError?.(`the served-names record (${servedNamesDocument}; ${instead})`, error);
      return new Map();
    }
  }

  /**
   * Starts the scope's informer (list, then watch). Its `start()` resolves
   * even when the list fails (client-node's ListWatch.doneHandler calls the
   * error handlers and returns), so the error handler marks this attempt.
   */
  async #startScope(scope: Scope): Promise<void> {
    const attempt = { failed: false };
    scope.attempt = attempt;
    await scope.informer.start();
    if (attempt.failed || scope.listed) return;
    scope.listed = true;
    // A scope whose first list failed lists again after its backoff; once that relist is in, the view is whole.
    if (this.#index.isWhole || !this.#scopes.every((each) => each.listed)) return;
    this.#chosenWhilePartial = new Set(this.#index.whole());
  }

  /**
   * Starts the scope again. While the view is partial, reads the record first:
   * the relist may bring the recorded Service of a name this replica chose
   * from part of the claimants, and a record read at start-up may name a
   * Service the running replicas have since moved away from.
   */
  async #relist(scope: Scope): Promise<void> {
    if (!this.#index.isWhole)
      this.#index.remember(
        await this.#readServed('read again before a relist; each name stays with the Service serving it here'),
      );
    await this.#startScope(scope);
  }

  /**
   * Records the Service now serving `name` for the other replicas. Not from a
   * replica whose view is partial, nor for a name it chose while partial: it
   * may be missing the Service the others serve, and its choice would mislead
   * the replicas that start next.
   */
  #record(name: string, service: string | null): void {
    const served = this.#served;
    if (served === undefined || !this.#index.isWhole) return;
    if (this.#chosenWhilePartial.has(name)) {
      // That no Service claims the name any more is true in every replica's view.
      if (service !== null) return;
      this.#chosenWhilePartial.delete(name);
    }
    this.#recording = this.#recording
      .then(() => served.record(name, service))
      .catch((error: unknown) =>
        this.#options.onError?.(
          `the served-names record (${servedNamesDocument}; written again on the next change)`,
          error,
        ),
      );
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await Promise.all(
      this.#scopes.map(async (scope) => {
        await scope.informer.stop();
        await scope.starting.catch(() => {});
      }),
    );
  }

  /** The worlds discovery contributes now. */
  worlds() {
    return this.#index.worlds();
  }

  #makeScope(core: CoreV1Api, namespace: string | null): Scope {
    const labelSelector = worldLabelSelector;
    const path = namespace === null ? '/api/v1/services' : `/api/v1/namespaces/${namespace}/services`;
    // Bounded like every backend call (bounded-call.ts): a list the API server never answers ends at
    // apiCallTimeoutMs (the informer then restarts with backoff) or when discovery stops.
    const list =
      namespace === null
        ? () =>
            boundedCall(callBound(this.#stopping.signal), (call) =>
              core.listServiceForAllNamespaces({ labelSelector }, call),
            )
        : () =>
            boundedCall(callBound(this.#stopping.signal), (call) =>
              core.listNamespacedService({ namespace, labelSelector }, call),
            );
    const delayFn = this.#options.watchReconnectDelay;
    const informer = new ListWatch<V1Service>(
      path,
      new BookmarkWatch(this.#options.kubeConfig, this.#stopping.signal),
      list,
      false,
      labelSelector,
      undefined,
      delayFn ? { delayFn } : undefined,
    );
    const scope: Scope = {
      name: namespace ?? '(all namespaces)',
      informer,
      backoffMs: 0,
      starting: Promise.resolve(),
      attempt: { failed: false },
      listed: false,
    };
    const domain = this.#options.clusterDomain ?? 'cluster.local';
    const configuredAuthorities = new Set(this.#options.configuredAuthorities ?? []);
    const onChange = (service: V1Service) => {
      scope.backoffMs = 0;
      const key = `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;
      const reading = worldFromService(service, domain, configuredAuthorities);
      if ('skipped' in reading) this.#options.onIssue?.({ service: key, problem: reading.skipped });
      this.#index.put(key, 'world' in reading ? reading.world : null);
    };
    informer.on('add', onChange);
    informer.on('update', onChange);
    informer.on('delete', (service) => {
      scope.backoffMs = 0;
      this.#index.delete(`${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`);
    });
    informer.on('error', (error) => {
      scope.attempt.failed = true;
      this.#restart(scope, error);
    });
    return scope;
  }

  /** The informer stopped itself on this error: start it again after the scope's backoff. */
  #restart(scope: Scope, error: unknown): void {
    if (this.#stopping.signal.aborted) return;
    const { initialMs, maxMs } = this.#options.restartBackoff ?? defaultRestartBackoff;
    scope.backoffMs = scope.backoffMs === 0 ? initialMs : Math.min(scope.backoffMs * 2, maxMs);
    // client-node's own text carries the response body and headers (errors.ts): only the status goes on.
    this.#options.onError?.(
      `${scope.name}; it lists again in ${scope.backoffMs} ms`,
      apiFailure(scope.name, 'list/watch services', error),
    );
    scope.starting = this.#clock.sleep(scope.backoffMs, this.#stopping.signal).then(
      () => this.#relist(scope),
      () => {}, // stopped during the pause
    );
  }
}
