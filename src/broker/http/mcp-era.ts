import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

/** The first revision of the per-request (2026-07-28) era; the SDK's `isModernProtocolVersion` compares against it. */
const firstModernRevision = '2026-07-28';

/**
 * Whether the SDK's `createMcpHandler` would serve this request as 2025-era
 * traffic (its `isLegacyRequest`): the SDK's `classifyInboundRequest` on the
 * method, the three MCP headers and the parsed body, without a web `Request`.
 * A POST without a JSON body is 2025-era, as there.
 *
 * The two common cases are answered first without the SDK, for a single
 * JSON-RPC request exactly as the SDK's (strict) `JSONRPCRequestSchema` has
 * it (the only shape the SDK's `classifyRequestBody` sees):
 * - with no `_meta` in its params (so no 2026-07-28 envelope claim) and no
 *   MCP-Protocol-Version header of that era, it is 2025-era whatever its
 *   method (`classifyRequestBody`: no claim, no modern header);
 * - with the envelope claim (the protocol-version key in `params._meta`) on
 *   any method but `initialize`, it is not: `classifyRequestBody` answers
 *   such a request `modern` or with a rejection of the modern path's ladder
 *   (an invalid envelope, a header that disagrees), never `legacy`, and the
 *   SDK's handler classifies it again itself. Only `initialize` reads the
 *   claim's validity to choose an era.
 * Reaching either answer costs the SDK three zod parses of the body, and the
 * second was paid twice per 2026-07-28 call (here, then in
 * `createMcpHandler`). test/broker/http/mcp-era.test.ts holds the two answers
 * equal.
 */
export function isLegacyEra(
  method: string,
  headers: Record<string, string | string[] | undefined>,
  body: unknown,
): boolean {
  if (method !== 'POST') return true;
  if (body === undefined) return true;
  const protocolVersion = headerValue(headers['mcp-protocol-version']);
  const request = plainRequest(body);
  if (request !== undefined) {
    const claim = hasEnvelopeClaim(request.params);
    if (!claim && !hasMeta(request.params) && (protocolVersion === undefined || isLegacyRevision(protocolVersion)))
      return true;
    if (claim && request.method !== 'initialize') return false;
  }
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    ...(protocolVersion === undefined ? {} : { protocolVersionHeader: protocolVersion }),
    ...optional('mcpMethodHeader', headerValue(headers['mcp-method'])),
    ...optional('mcpNameHeader', headerValue(headers['mcp-name'])),
    body,
  });
  return outcome.kind === 'legacy';
}

const requestKeys = new Set(['jsonrpc', 'id', 'method', 'params']);

/** A JSON-RPC request: jsonrpc "2.0", a string or integer id, a string method, object params or none, nothing else. */
function plainRequest(body: unknown): { method: string; params?: object } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  for (const key of Object.keys(body)) if (!requestKeys.has(key)) return undefined;
  const { jsonrpc, id, method, params } = body as Record<string, unknown>;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (params === undefined) return { method };
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  return { method, params };
}

const hasMeta = (params: object | undefined) => params !== undefined && Object.hasOwn(params, '_meta');

/** The SDK's `hasEnvelopeClaim`: `params._meta` is an object holding the protocol-version key, whatever its value. */
function hasEnvelopeClaim(params: object | undefined): boolean {
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/** A dated revision before the per-request era (`2025-11-25`, ...); anything else is left to the SDK. */
function isLegacyRevision(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && value < firstModernRevision;
}

/** A header as `Headers.get` reads it: repeated values joined with ", ". */
function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, string>>);
}
