import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { jsonRpcError, JsonRpcCode, type JsonRpcErrorBody } from './json-rpc-error.ts';

type Mapped = { status: number; body: JsonRpcErrorBody };

/**
 * Body-parsing failures on `/mcp`, answered as JSON-RPC errors (JSON-RPC §5.1:
 * -32700 for invalid JSON, -32600 for an unacceptable request). Anything
 * unexpected becomes a generic -32603 and is logged; no internal text leaves.
 */
export function mapMcpHttpError(error: FastifyError): Mapped {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: jsonRpcError(JsonRpcCode.ParseError, 'Parse error: request body is not valid JSON') };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: jsonRpcError(JsonRpcCode.InvalidRequest, 'Request body is too large') };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        body: jsonRpcError(JsonRpcCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json'),
      };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500)
    return { status, body: jsonRpcError(JsonRpcCode.InvalidRequest, `Invalid request: ${error.message}`) };
  return { status: 500, body: jsonRpcError(JsonRpcCode.InternalError, 'Internal error') };
}

export function mcpErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const mapped = mapMcpHttpError(error);
  if (mapped.status >= 500) request.log.error({ err: error }, 'MCP request failed');
  return reply.code(mapped.status).send(mapped.body);
}

/** Everything else on the broker's listeners: OAuth-style JSON errors, 5xx kept generic. */
export function plainErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status =
    error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'server_error', error_description: 'internal error' });
  }
  return reply.code(status).send({ error: 'invalid_request', error_description: error.message });
}

export function notFoundHandler(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send({ error: 'not_found', error_description: 'no such route' });
}
