/** JSON-RPC 2.0 §5.1 error codes the HTTP layer answers with itself. */
export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  InternalError: -32603,
  /** Implementation-defined server errors (-32000..-32019, MCP N-9). */
  ServerError: -32000,
  /** What the SDK uses for an unknown or ended session (HTTP 404). */
  SessionNotFound: -32001,
} as const;

export type JsonRpcErrorBody = { jsonrpc: '2.0'; error: { code: number; message: string }; id: null };

/**
 * An error body without an id: the HTTP layer answers before (or instead of)
 * reading a request id, and JSON-RPC §5 says `id` is null then. Modern
 * clients recognise these bodies on 4xx (MCP 2026-07-28 backward compatibility).
 */
export function jsonRpcError(code: number, message: string): JsonRpcErrorBody {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
