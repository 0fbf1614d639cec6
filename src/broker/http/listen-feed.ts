import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ResourceSubscriptions } from '../changes/resource-subscriptions.ts';
import type { WorldGateway } from '../worlds/gateway.ts';
import { checkSubscribable } from './resource-subscribe.ts';

/**
 * The worlds' change feed for 2026-07-28 `subscriptions/listen` streams. The
 * SDK's listen router (createMcpHandler) delivers `resource_updated` events
 * published on its bus to every open stream whose filter lists the event's
 * URI exactly; nothing publishes them unless the broker does. Here each URI an
 * open listen asked for is one subscription in the same `ResourceSubscriptions`
 * the 2025-era sessions use (src/broker/changes/follow-changes.ts feeds it), so
 * a URI naming a world by an alias is notified in the very form the client
 * used. One subscription per distinct URI, however many streams want it: each
 * change is published once, and the router hands it to each of them once.
 */
export class ListenFeed {
  readonly #subscriptions: ResourceSubscriptions;
  readonly #gateway: WorldGateway;
  readonly #publish: (uri: string) => void;
  /** URI → the key it is subscribed under in `ResourceSubscriptions`, and how many open streams want it. */
  readonly #watched = new Map<string, { key: object; streams: number }>();

  constructor(subscriptions: ResourceSubscriptions, gateway: WorldGateway, publish: (uri: string) => void) {
    this.#subscriptions = subscriptions;
    this.#gateway = gateway;
    this.#publish = publish;
  }

  /**
   * Watches `uris` for one stream; the returned function stops (call it once,
   * when the stream ends). Throws the ProtocolError `resources/subscribe`
   * answers for a URI it would refuse, and for more URIs than a session may
   * subscribe to (-32600), before watching any.
   */
  open(uris: readonly string[]): () => void {
    const distinct = [...new Set(uris)];
    if (distinct.length > this.#subscriptions.perSession)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `at most ${this.#subscriptions.perSession} resource subscriptions per subscriptions/listen; listen for fewer`,
      );
    for (const uri of distinct) checkSubscribable(uri, this.#subscriptions, this.#gateway);
    for (const uri of distinct) this.#watch(uri);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      for (const uri of distinct) this.#unwatch(uri);
    };
  }

  #watch(uri: string): void {
    const watched = this.#watched.get(uri);
    if (watched !== undefined) {
      watched.streams += 1;
      return;
    }
    const key = {};
    this.#subscriptions.subscribe(key, uri, this.#publish, this.#gateway.list());
    this.#watched.set(uri, { key, streams: 1 });
  }

  #unwatch(uri: string): void {
    const watched = this.#watched.get(uri);
    if (watched === undefined) return;
    watched.streams -= 1;
    if (watched.streams > 0) return;
    this.#subscriptions.drop(watched.key);
    this.#watched.delete(uri);
  }
}
