import { McpServer } from '@modelcontextprotocol/server';
import type { GraphService, KnowledgeServices, SessionState, ToolContext } from '../mcp/definitions.ts';
import { callerGateway } from '../worlds/caller-gateway.ts';
import type { WorldGateway } from '../worlds/gateway.ts';
import type { ResourceSubscriptions } from '../changes/resource-subscriptions.ts';
import { enableResourceSubscriptions, type SharedSubscriptionBound } from './resource-subscribe.ts';
import { registerDefinitions, type McpDefinitions, type RegisterOptions } from './register-definitions.ts';

export type McpServerSetup = {
  serverInfo: { name: string; version: string };
  instructions?: string;
  definitions: McpDefinitions;
  gateway: WorldGateway;
  /** The link graph, for mark_explore's backlinks; absent, the card says none are recorded. */
  graph?: GraphService;
  /** World descriptors and the publishing standard; absent, mark_worlds shows no descriptors and no policy applies. */
  knowledge?: KnowledgeServices;
  /** What cross-world searches remember between calls; absent, every search takes two rounds. */
  searchStats?: ToolContext['searchStats'];
  /** Resource subscriptions fed by the worlds' change feeds; absent, the server offers none. */
  subscriptions?: ResourceSubscriptions;
  /** With sessions shared through Redis, where their subscription bound is kept for the cluster. */
  sharedSubscriptions?: SharedSubscriptionBound;
  now?: () => Date;
} & RegisterOptions;

/**
 * One SDK server per stateful session, per stateless request, and per
 * 2026-07-28 exchange. `onlyTool`: the server lives for one call of that tool
 * (`toolCalledBy`), so only that tool is registered when it is one of ours.
 * `listen`: a 2026-07-28 exchange, whose resource updates travel on
 * `subscriptions/listen` streams (src/broker/http/listen-feed.ts).
 */
export type McpServerFactory = (session: SessionState, options?: { onlyTool?: string; listen?: boolean }) => McpServer;

/**
 * The tool a request body calls when it is a single `tools/call`: a server
 * built for that request answers nothing else, and registering the other
 * tools, the resources and the prompts is most of what building one costs
 * (docs/benchmarks.md, "Broker per-call work"). Undefined for anything else.
 */
export function toolCalledBy(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const name = (params as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Binds the definitions to a session: every call on the returned server sees
 * the same `SessionState`, the gateway, and the identity verified for that
 * very request (never the one that opened the session).
 */
export function createMcpServerFactory(setup: McpServerSetup): McpServerFactory {
  const now = setup.now ?? (() => new Date());
  const options = setup.instructions === undefined ? {} : { instructions: setup.instructions };
  return (session, { onlyTool, listen = false } = {}) => {
    const server = new McpServer(setup.serverInfo, options);
    const oneTool = registerDefinitions(
      server,
      setup.definitions,
      ({ identity, signal }) => ({
        // Reads are charged to the caller's fair share of each world (src/broker/worlds/fair-gate.ts).
        gateway: callerGateway(setup.gateway, identity),
        identity,
        session,
        signal,
        now,
        ...(setup.graph ? { graph: setup.graph } : {}),
        ...(setup.knowledge ? { knowledge: setup.knowledge } : {}),
        ...(setup.searchStats ? { searchStats: setup.searchStats } : {}),
      }),
      setup,
      onlyTool,
    );
    if (setup.subscriptions && !oneTool)
      enableResourceSubscriptions(server, setup.subscriptions, session, setup.gateway, {
        listen,
        ...(setup.sharedSubscriptions ? { shared: setup.sharedSubscriptions } : {}),
      });
    return server;
  };
}
