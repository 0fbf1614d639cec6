import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type McpServer } from '@modelcontextprotocol/server';
import { codeOf } from '../../errors/coded-error.ts';
import type { ResourceSubscriptions } from '../changes/resource-subscriptions.ts';
import type { SessionState } from '../mcp/definitions.ts';
import { isStateUnavailable } from '../state/index.ts';
import type { WorldGateway } from '../worlds/gateway.ts';
import type { SubscriptionReservation } from './shared-sessions.ts';

/**
 * `resources/subscribe` and `resources/unsubscribe` on one session's server:
 * a subscribed `mark://` document that a world reports changed reaches the
 * client as `notifications/resources/updated` (on the session's standalone
 * SSE stream). A URI may name the world by any of its addresses, as
 * resources/read takes it; unknown worlds and URIs that are not
 * `mark://{world}/{path}` are refused; a session's subscriptions end with its server.
 *
 * The session's subscribed URIs are also kept in its memory
 * (`subscribedResourcesKey`), so a session shared by several replicas carries
 * them: a replica that restores or reloads the memory subscribes again
 * locally, and the replica holding the client's SSE stream notifies it.
 */
export const subscribedResourcesKey = 'resources/subscribed';

/**
 * The bound of a shared session's subscriptions, kept for the whole cluster
 * (src/broker/http/shared-sessions.ts, `reserveSubscription`): a replica's
 * copy cannot see what the other replicas are confirming at the same moment,
 * so the place is taken in the shared store, atomically, before the copy
 * subscribes. Absent, sessions live on one replica, and
 * `ResourceSubscriptions.subscribe` checks and adds in one synchronous step.
 */
export type SharedSubscriptionBound = {
  /** Takes `uri`'s place; `giveBack` returns a place the reservation `added`, when this copy then refuses the subscribe. */
  reserve(
    sessionId: string,
    uri: string,
    limit: number,
  ): Promise<{ reservation: SubscriptionReservation; giveBack(): Promise<void> }>;
};

/**
 * Refuses a URI no subscription could ever be notified for, as a JSON-RPC
 * error: not `mark://{world}/{path}` (-32602 invalid params), or naming a
 * world the gateway does not know by any of its addresses (the SDK's
 * `ResourceNotFoundError`: also -32602, on every revision, told apart by its
 * `data` being exactly `{ uri }`). The one check for `resources/subscribe`
 * and for the URIs of a 2026-07-28 `subscriptions/listen`
 * (src/broker/http/listen-feed.ts).
 */
export function checkSubscribable(uri: string, subscriptions: ResourceSubscriptions, gateway: WorldGateway): void {
  let world: string;
  try {
    world = subscriptions.documentOf(uri, gateway.list()).world;
  } catch (error) {
    if (codeOf(error) === 'ERR_INVALID_TOOL_URL')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid resource URI: ${(error as Error).message}`);
    throw error;
  }
  if (gateway.get(world) === undefined) throw new ResourceNotFoundError(uri);
}

/**
 * A server with no session to deliver on: a 2025-era request served without
 * one (stateless mode, a full store, the directory down at `initialize`), or
 * a 2026-07-28 exchange (`listen`). The first refuses `resources/subscribe`
 * (-32600) and advertises no `resources.subscribe`, since nothing could ever
 * notify it; the second advertises it, since `subscriptions/listen` carries
 * the updates (src/broker/http/listen-feed.ts), and the SDK answers its
 * `resources/subscribe`, which that revision no longer has (-32601).
 */
function sessionlessSubscriptions(server: McpServer, listen: boolean): void {
  if (listen) {
    server.server.registerCapabilities({ resources: { subscribe: true } });
    return;
  }
  const refuse = async (): Promise<never> => {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      'resource subscriptions need an MCP session, and this request has none (initialize was answered without one); initialize again later for a session',
    );
  };
  server.server.setRequestHandler('resources/subscribe', refuse);
  server.server.setRequestHandler('resources/unsubscribe', refuse);
}

export function enableResourceSubscriptions(
  server: McpServer,
  subscriptions: ResourceSubscriptions,
  session: SessionState,
  gateway: WorldGateway,
  options: { listen?: boolean; shared?: SharedSubscriptionBound } = {},
): void {
  if (session.id === undefined) {
    sessionlessSubscriptions(server, options.listen === true);
    return;
  }
  const { shared } = options;
  const low = server.server;
  low.registerCapabilities({ resources: { subscribe: true } });
  const notify = (uri: string) => void low.sendResourceUpdated({ uri }).catch(() => {});
  const remember = () => session.set(subscribedResourcesKey, subscriptions.urisOf(session));
  session.onRestore?.(() => {
    subscriptions.drop(session);
    const uris = session.get<unknown>(subscribedResourcesKey);
    if (!Array.isArray(uris)) return;
    for (const uri of uris)
      try {
        if (typeof uri === 'string') subscriptions.subscribe(session, uri, notify, gateway.list());
      } catch {
        // A URI another replica accepted but this one cannot parse or hold: skipped, not fatal.
      }
  });
  const limitReached = () => new ProtocolError(ProtocolErrorCode.InvalidRequest, subscriptions.limitError().message);
  const subscribeHere = (uri: string): string => {
    try {
      return subscriptions.subscribe(session, uri, notify, gateway.list()).world;
    } catch (error) {
      if (codeOf(error) === 'ERR_SUBSCRIPTION_LIMIT') throw limitReached();
      throw error;
    }
  };
  low.setRequestHandler('resources/subscribe', async (request) => {
    const { uri } = request.params;
    checkSubscribable(uri, subscriptions, gateway);
    const id = session.id;
    if (shared === undefined || id === undefined) {
      // One replica: the check and the add are one synchronous step.
      subscribeHere(uri);
      remember();
      return {};
    }
    // Shared: the bound is taken in Redis first, and only then does this copy subscribe, so that the
    // copy never holds a subscription the bound has not admitted (a save only removes, and reads the
    // set back after an add: src/broker/http/shared-memory.ts).
    const { reservation, giveBack } = await shared
      .reserve(id, uri, subscriptions.perSession)
      .catch((error: unknown) => {
        if (!isStateUnavailable(error)) throw error;
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `not subscribed to ${uri}: the session store did not answer (${(error as Error).message}); retry shortly`,
        );
      });
    if (reservation === 'full') throw limitReached();
    if (reservation === 'gone')
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'this MCP session has ended; start a new session');
    try {
      subscribeHere(uri);
    } catch (error) {
      // This copy still holds subscriptions another replica dropped; it reads them again on its next request.
      // A place Redis does not take back now is kept by the copy and given back with its next save
      // (src/broker/http/shared-memory.ts).
      if (reservation === 'added') await giveBack().catch(() => undefined);
      throw error;
    }
    remember();
    return {};
  });
  low.setRequestHandler('resources/unsubscribe', async (request) => {
    subscriptions.unsubscribe(session, request.params.uri, gateway.list());
    remember();
    return {};
  });
  const closed = low.onclose;
  low.onclose = () => {
    subscriptions.drop(session);
    closed?.();
  };
}
