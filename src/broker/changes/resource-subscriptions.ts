import { errorWithCode } from '../../errors/coded-error.ts';
import { cutAnchor, parseToolUrl } from '../mcp/tool-url.ts';
import type { WorldInfo } from '../worlds/gateway.ts';

/**
 * MCP resource subscriptions (`resources/subscribe`, MCP 2025-06-18
 * "Resources"): which session watches which `mark://` document, so a change a
 * world reports reaches each of them as `notifications/resources/updated`
 * with the URI it subscribed with. Sessions are keys held weakly by nobody:
 * the session's server drops its own on close. Each session holds at most
 * `perSession` subscriptions.
 */
export type Notify = (uri: string) => void;

export class SubscriptionLimitError extends errorWithCode('ERR_SUBSCRIPTION_LIMIT') {}

export const defaultSubscriptionsPerSession = 256;

export class ResourceSubscriptions {
  readonly perSession: number;
  /** `world\0path` → session → the URIs it subscribed with. */
  readonly #byDocument = new Map<string, Map<object, { notify: Notify; uris: Set<string> }>>();
  readonly #bySession = new Map<object, Set<string>>();

  constructor(options: { perSession?: number } = {}) {
    this.perSession = options.perSession ?? defaultSubscriptionsPerSession;
  }

  /**
   * Throws ToolUrlError for a URI that is not `mark://{world}/{path}`, SubscriptionLimitError past the bound.
   * Given the known `worlds`, a URI in another of a world's address forms is that world's document, as
   * resources/read and the tools read it (tool-url.ts); notices still name the URI subscribed with.
   */
  subscribe(
    session: object,
    uri: string,
    notify: Notify,
    worlds?: readonly WorldInfo[],
  ): { world: string; path: string } {
    const target = this.documentOf(uri, worlds);
    const key = documentKey(target.world, target.path);
    const keys = this.#bySession.get(session) ?? new Set<string>();
    const watchers = this.#byDocument.get(key) ?? new Map();
    const entry = watchers.get(session) ?? { notify, uris: new Set<string>() };
    if (!entry.uris.has(uri) && this.count(session) >= this.perSession) throw this.limitError();
    entry.uris.add(uri);
    watchers.set(session, entry);
    this.#byDocument.set(key, watchers);
    keys.add(key);
    this.#bySession.set(session, keys);
    return target;
  }

  /** The refusal of a subscription past the bound, here or in a shared session's store. */
  limitError(): SubscriptionLimitError {
    return new SubscriptionLimitError(
      `at most ${this.perSession} resource subscriptions per session; unsubscribe from one before subscribing to another`,
    );
  }

  /** The document a subscription URI names, as `subscribe` reads it; throws ToolUrlError as it does. */
  documentOf(uri: string, worlds?: readonly WorldInfo[]): { world: string; path: string } {
    return parseToolUrl(cutAnchor(uri).url, worlds);
  }

  unsubscribe(session: object, uri: string, worlds?: readonly WorldInfo[]): void {
    let key: string;
    try {
      const target = this.documentOf(uri, worlds);
      key = documentKey(target.world, target.path);
    } catch {
      return;
    }
    const watchers = this.#byDocument.get(key);
    const entry = watchers?.get(session);
    if (watchers === undefined || entry === undefined) return;
    entry.uris.delete(uri);
    if (entry.uris.size > 0) return;
    watchers.delete(session);
    if (watchers.size === 0) this.#byDocument.delete(key);
    this.#bySession.get(session)?.delete(key);
  }

  /** Forgets everything a session subscribed to (its server closed). */
  drop(session: object): void {
    for (const key of this.#bySession.get(session) ?? []) {
      const watchers = this.#byDocument.get(key);
      watchers?.delete(session);
      if (watchers?.size === 0) this.#byDocument.delete(key);
    }
    this.#bySession.delete(session);
  }

  /** Every URI `session` is subscribed with, in no particular order. */
  urisOf(session: object): string[] {
    return [...(this.#bySession.get(session) ?? [])].flatMap((key) => [
      ...(this.#byDocument.get(key)?.get(session)?.uris ?? []),
    ]);
  }

  count(session: object): number {
    let total = 0;
    for (const key of this.#bySession.get(session) ?? [])
      total += this.#byDocument.get(key)?.get(session)?.uris.size ?? 0;
    return total;
  }

  /** A document changed: every session subscribed to it hears of it, once per URI it used. */
  changed(world: string, path: string): void {
    for (const { notify, uris } of this.#byDocument.get(documentKey(world, path))?.values() ?? [])
      for (const uri of uris) notify(uri);
  }

  /** A world must be read again (resync): every subscription in it is told its resource may have changed. */
  worldChanged(world: string): void {
    const prefix = `${world}\u0000`;
    for (const [key, watchers] of this.#byDocument)
      if (key.startsWith(prefix)) for (const { notify, uris } of watchers.values()) for (const uri of uris) notify(uri);
  }
}

function documentKey(world: string, path: string): string {
  return `${world}\u0000${path}`;
}
