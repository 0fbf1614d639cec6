import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { LRUCache } from 'lru-cache';
import { checkHost, checkOrigin, type RebindingPolicy, type RebindingVerdict } from './dns-rebinding.ts';
import { jsonRpcError, JsonRpcCode } from './json-rpc-error.ts';

/** MCP Streamable HTTP (2025-11-25): an invalid Origin MUST get 403; the body MAY be a JSON-RPC error without id. */
export function rebindingHook(policy: RebindingPolicy): onRequestHookHandler {
  // A client sends the same Host on every request: its verdict is parsed once (a URL per request otherwise).
  const hostVerdicts = new LRUCache<string, RebindingVerdict>({ max: 64 });
  const hostVerdict = (host: string | undefined): RebindingVerdict => {
    if (host === undefined) return checkHost(host, policy);
    let verdict = hostVerdicts.get(host);
    if (verdict === undefined) {
      verdict = checkHost(host, policy);
      hostVerdicts.set(host, verdict);
    }
    return verdict;
  };
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    const verdict = hostVerdict(request.headers.host);
    const originVerdict = verdict.ok ? checkOrigin(typeof origin === 'string' ? origin : undefined, policy) : verdict;
    if (originVerdict.ok) return;
    request.log.warn({ reason: originVerdict.reason }, 'request refused by DNS-rebinding protection');
    return reply.code(403).send(jsonRpcError(JsonRpcCode.ServerError, `Forbidden: ${originVerdict.reason}`));
  };
}
