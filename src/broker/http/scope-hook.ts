import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { bearerChallenge, bearerErrorBody } from '../auth/bearer-challenge.ts';
import { BearerError } from '../auth/bearer-error.ts';
import { readScope, writeScope } from '../auth/tokens/scope.ts';
import type { ToolDefinition } from '../mcp/definitions.ts';
import { listenedResourcesOf } from './modern-listen.ts';

export type ScopeHookOptions = {
  tools: readonly Pick<ToolDefinition, 'name' | 'readOnly'>[];
  resourceMetadataUrl: string;
};

/**
 * Scopes mean what the consent page showed: every JSON-RPC message of a
 * request is checked before any of it runs. `tools/call` of a read-only tool,
 * `resources/read`, `resources/subscribe`, `prompts/get` and a 2026-07-28
 * `subscriptions/listen` naming `resourceSubscriptions` need `mark.read`; any other tool needs
 * `mark.read` and `mark.write` (the tool list is in docs/signin.md). A request needing a scope
 * the token lacks is refused whole with 403 `insufficient_scope` and a
 * challenge naming every scope the request needs (RFC 6750 §3.1, MCP
 * authorization "Scope Challenge Handling"), so the client can step up.
 * Discovery (`initialize`, `tools/list`, `ping`, ...) needs no scope.
 */
export function scopeHook(options: ScopeHookOptions): preHandlerHookHandler {
  const writeTools = new Set(options.tools.filter((tool) => !tool.readOnly).map((tool) => tool.name));
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const identity = request.identity;
    if (identity === undefined || identity === null || request.method !== 'POST') return;
    const needed = scopesNeeded(request.body, writeTools);
    const granted = new Set(identity.scopes ?? []);
    if ([...needed].every((scope) => granted.has(scope))) return;
    const refusal = new BearerError('ERR_BEARER_SCOPE', `token lacks ${[...needed].join(' ')}`);
    request.log.info({ code: refusal.code, needed: [...needed] }, 'bearer token lacks a scope');
    return reply
      .code(refusal.status)
      .header(
        'www-authenticate',
        bearerChallenge(refusal, { resourceMetadataUrl: options.resourceMetadataUrl, scopes: [...needed] }),
      )
      .header('cache-control', 'no-store')
      .send(bearerErrorBody(refusal));
  };
}

/** The scopes a JSON-RPC body (one message or a batch) needs, in a stable order. */
export function scopesNeeded(body: unknown, writeTools: ReadonlySet<string>): Set<string> {
  const needed = new Set<string>();
  for (const message of Array.isArray(body) ? body : [body]) {
    const scope = scopeOf(message, writeTools);
    if (scope !== null) needed.add(scope);
  }
  // A write reads too (the read-right probe, a merge): it needs both, and the challenge names both.
  return needed.has(writeScope) ? new Set([readScope, writeScope]) : needed;
}

function scopeOf(message: unknown, writeTools: ReadonlySet<string>): string | null {
  if (typeof message !== 'object' || message === null) return null;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown; notifications?: unknown } };
  if (method === 'resources/read' || method === 'resources/subscribe' || method === 'prompts/get') return readScope;
  // A 2026-07-28 listen for resource URIs is that era's resources/subscribe.
  if (method === 'subscriptions/listen') return listenedResourcesOf(params).named ? readScope : null;
  if (method !== 'tools/call') return null;
  const name = typeof params === 'object' && params !== null ? params.name : undefined;
  return typeof name === 'string' && writeTools.has(name) ? writeScope : readScope;
}
