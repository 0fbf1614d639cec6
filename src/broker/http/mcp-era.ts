import { classifyInboundRequest } from '@modelcontextprotocol/server';

/** The first revision of the per-request (2026-07-28) era; the SDK's `isModernProtocolVersion` compares against it. */
const firstModernRevision = '2026-07-28';

/**
 * Whether the SDK's `createMcpHandler` would serve this request as 2025-era
 * traffic (its `isLegacyRequest`): the SDK's `classifyInboundRequest` on the
 * method, the three MCP headers and the parsed body, without a web `Request`.
 * A POST without a JSON body is 2025-era, as there.
 *
 * The common case is answered first without the SDK: a single JSON-RPC
 * request exactly as the SDK's (strict) `JSONRPCRequestSchema` has it, with
 * no `_meta` in its params (so no 2026-07-28 envelope claim) and no
 * MCP-Protocol-Version header of that era. The SDK classifies such a request
 * as 2025-era whatever its method (`classifyRequestBody`: no claim, no
 * modern header), and reaching that answer costs it three zod parses of the
 * body. test/broker/http/mcp-era.test.ts holds the two answers equal.
 */
export function isLegacyEra(
  method: string,
  headers: Record<string, string | string[] | undefined>,
  body: unknown,
): boolean {
  if (method !== 'POST') return true;
  if (body === undefined) return true;
  const protocolVersion = headerValue(headers['mcp-protocol-version']);
  if (isPlainRequest(body) && (protocolVersion === undefined || isLegacyRevision(protocolVersion))) return true;
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

/** A JSON-RPC request (jsonrpc "2.0", a string or integer id, a string method, object params or none, nothing else) whose params carry no `_meta`. */
function isPlainRequest(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  for (const key of Object.keys(body)) if (!requestKeys.has(key)) return false;
  const { jsonrpc, id, method, params } = body as Record<string, unknown>;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return false;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  if (params === undefined) return true;
  return typeof params === 'object' && params !== null && !Array.isArray(params) && !Object.hasOwn(params, '_meta');
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
