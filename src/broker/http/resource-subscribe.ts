import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type McpServer } from '@modelcontextprotocol/server';
import { codeOf } from '../../errors/coded-error.ts';
import type { ResourceSubscriptions } from '../changes/resource-subscriptions.ts';
import type { SessionState } from '../mcp/definitions.ts';
import type { WorldGateway } from '../worlds/gateway.ts';

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

export function enableResourceSubscriptions(
  server: McpServer,
  subscriptions: ResourceSubscriptions,
  session: SessionState,
  gateway: WorldGateway,
): void {
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
  low.setRequestHandler('resources/subscribe', async (request) => {
    const { uri } = request.params;
    let world: string;
    try {
      world = subscriptions.subscribe(session, uri, notify, gateway.list()).world;
    } catch (error) {
      if (codeOf(error) === 'ERR_INVALID_TOOL_URL')
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid resource URI: ${(error as Error).message}`);
      if (codeOf(error) === 'ERR_SUBSCRIPTION_LIMIT')
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, (error as Error).message);
      throw error;
    }
    if (gateway.get(world) === undefined) {
      subscriptions.unsubscribe(session, uri, gateway.list());
      throw new ResourceNotFoundError(uri);
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
