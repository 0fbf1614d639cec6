import type { ServerResponse } from 'node:http';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { identityFromAuthInfo } from './auth-info.ts';
import type { ListenFeed } from './listen-feed.ts';
import type { NodeMcpHandler } from './node-mcp-adapter.ts';
import { whenClosed } from './response-closed.ts';
import { expirySignal } from './stream-expiry.ts';

export type ListenGuardOptions = {
  /**
   * Streams one subject may hold open on this replica: the per-subject session
   * bound (SessionStore, maxSessionsPerSubject), a listen being the 2026-07-28
   * counterpart of a session's event stream. Past it the listen is refused,
   * so one subject cannot take every place under the SDK's process-wide cap.
   */
  perSubject: number;
  /** Where the URIs of a listen's `resourceSubscriptions` are watched; absent, the server offers no subscriptions. */
  feed?: ListenFeed;
};

/**
 * The broker's part of a 2026-07-28 `subscriptions/listen` (served by the
 * SDK's listen router behind `serve`): the subject's open streams are counted
 * and bounded, the filter's resource URIs are checked as `resources/subscribe`
 * checks them, and watched in the change feed for as long as the stream is
 * open; the stream ends when the token that opened it is no longer accepted
 * (`expirySignal`). Every other request goes to `serve` untouched.
 */
export function guardListens(serve: NodeMcpHandler, options: ListenGuardOptions): NodeMcpHandler {
  const openBySubject = new Map<string, number>();
  return async (req, res, body, auth) => {
    const listen = listenRequestOf(body);
    if (listen === undefined) return serve(req, res, body, auth);
    const identity = identityFromAuthInfo(auth);
    const subject = identity.subject;
    const open = openBySubject.get(subject) ?? 0;
    if (open >= options.perSubject)
      return refuse(
        res,
        listen.id,
        new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `at most ${options.perSubject} open subscriptions/listen streams per subject; close one before opening another`,
        ),
      );
    openBySubject.set(subject, open + 1);
    whenClosed(res, () => {
      const left = (openBySubject.get(subject) ?? 1) - 1;
      if (left > 0) openBySubject.set(subject, left);
      else openBySubject.delete(subject);
    });
    let stop = () => {};
    if (options.feed !== undefined && listen.uris.length > 0) {
      try {
        stop = options.feed.open(listen.uris);
      } catch (error) {
        if (!(error instanceof ProtocolError)) throw error;
        return refuse(res, listen.id, error);
      }
    }
    whenClosed(res, stop);
    return serve(req, res, body, auth, expirySignal(res, identity));
  };
}

type ListenRequest = { id: string | number; uris: readonly string[] };

/**
 * A single `subscriptions/listen` request and the resource URIs of its filter
 * (`listenedResourcesOf`); any other body is none.
 */
function listenRequestOf(body: unknown): ListenRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: unknown };
  if (method !== 'subscriptions/listen' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return { id, uris: listenedResourcesOf(params).uris };
}

/**
 * The one reader of a `subscriptions/listen` filter's resource URIs
 * (`params.notifications.resourceSubscriptions`), for the two questions asked
 * of it. `named`: the field is there, in any shape — the scope check
 * (src/broker/http/scope-hook.ts) then asks `mark.read`, deny on doubt.
 * `uris`: the field when it is a list of strings, the one shape the SDK
 * serves; any other it refuses as invalid params, so it names none here.
 */
export function listenedResourcesOf(params: unknown): { named: boolean; uris: readonly string[] } {
  const notifications = (params as { notifications?: unknown } | undefined)?.notifications;
  const uris = (notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
  const listOfStrings = Array.isArray(uris) && uris.every((uri) => typeof uri === 'string');
  return { named: uris !== undefined, uris: listOfStrings ? uris : [] };
}

/**
 * A refusal as the SDK answers a listen it refuses itself (its listen router):
 * HTTP 200 with the JSON-RPC error, in-band (2026-07-28 "HTTP status codes").
 */
function refuse(res: ServerResponse, id: string | number, error: ProtocolError): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
    }),
  );
}
