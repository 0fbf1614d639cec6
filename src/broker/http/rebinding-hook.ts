import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { checkHost, checkOrigin, type RebindingPolicy } from './dns-rebinding.ts';
import { jsonRpcError, JsonRpcCode } from './json-rpc-error.ts';

/** MCP Streamable HTTP (2025-11-25): an invalid Origin MUST get 403; the body MAY be a JSON-RPC error without id. */
export function rebindingHook(policy: RebindingPolicy): onRequestHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    const verdict = checkHost(request.headers.host, policy);
    const originVerdict = verdict.ok ? checkOrigin(typeof origin === 'string' ? origin : undefined, policy) : verdict;
    if (originVerdict.ok) return;
    request.log.warn({ reason: originVerdict.reason }, 'request refused by DNS-rebinding protection');
    return reply.code(403).send(jsonRpcError(JsonRpcCode.ServerError, `Forbidden: ${originVerdict.reason}`));
  };
}
