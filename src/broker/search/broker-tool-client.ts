/**
 * One MCP tool call to the broker over Streamable HTTP, for command-line
 * clients such as `demarkus-broker search`. A single JSON-RPC `tools/call`
 * POST without a session: the broker serves a 2025-era request without
 * `Mcp-Session-Id` statelessly (src/broker/http/mcp-endpoint.ts), so no
 * initialize round trip is needed. The answer may come as JSON or as an SSE
 * stream; both are read.
 */
import { errorWithCode } from '../../errors/coded-error.ts';
export type BrokerToolResult = { text: string; isError: boolean };

/** The broker could not be asked, or answered something other than a tool result. */
export class BrokerCallError extends errorWithCode('ERR_BROKER_CALL') {}

const protocolVersion = '2025-06-18';

export async function callBrokerTool(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<BrokerToolResult> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': protocolVersion,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    throw new BrokerCallError(`cannot reach the broker at ${url}: ${(error as Error).message}`, { cause: error });
  }
  const body = await response.text();
  if (response.status === 401 || response.status === 403) {
    throw new BrokerCallError(
      `the broker refused the token (HTTP ${response.status}: ${refusalDetail(response, body) ?? 'no reason given'}); sign in again (demarkus-broker login) or pass a fresh token with --token`,
    );
  }
  if (!response.ok) {
    const detail = refusalDetail(response, body);
    throw new BrokerCallError(
      `the broker answered HTTP ${response.status}${detail === undefined ? '' : `: ${detail}`}`,
    );
  }
  const message = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    ? lastEventData(body)
    : parseJson(body);
  return toolResultOf(message);
}

type RpcMessage = {
  error?: { code?: number; message?: string };
  result?: { content?: { type?: string; text?: string }[]; isError?: boolean };
};

function toolResultOf(message: RpcMessage): BrokerToolResult {
  if (message.error !== undefined)
    throw new BrokerCallError(
      `the broker refused the call: ${message.error.message ?? 'error'} (${message.error.code ?? '?'})`,
    );
  if (message.result === undefined) throw new BrokerCallError('the broker answered without a result');
  const text = (message.result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('');
  return { text, isError: message.result.isError === true };
}

/** The JSON-RPC response of an SSE stream: the last `data:` event that parses. */
function lastEventData(stream: string): RpcMessage {
  let found: RpcMessage | undefined;
  for (const event of stream.replaceAll('\r\n', '\n').split('\n\n')) {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data === '') continue;
    try {
      const message = JSON.parse(data) as RpcMessage;
      if (message.result !== undefined || message.error !== undefined) found = message;
    } catch {
      // A non-JSON event (a comment or keep-alive) is not the answer.
    }
  }
  if (found === undefined) throw new BrokerCallError('the broker stream ended without an answer');
  return found;
}

function parseJson(body: string): RpcMessage {
  try {
    return JSON.parse(body) as RpcMessage;
  } catch {
    throw new BrokerCallError('the broker answered something other than JSON');
  }
}

/** The broker's own reason for a refusal: the bearer challenge's error_description, else the body's. */
function refusalDetail(response: Response, body: string): string | undefined {
  const challenge = /error_description="((?:[^"\\]|\\.)*)"/.exec(response.headers.get('www-authenticate') ?? '');
  if (challenge !== null) return challenge[1]!.replace(/\\(.)/g, '$1');
  try {
    const parsed = JSON.parse(body) as { error_description?: unknown; error?: unknown };
    if (typeof parsed.error_description === 'string') return parsed.error_description;
    if (typeof parsed.error === 'string') return parsed.error;
    const rpc = parsed.error as { message?: unknown } | undefined;
    if (typeof rpc?.message === 'string') return rpc.message;
  } catch {
    // Not JSON: the first line of the text, if any.
  }
  const first = body.trim().split('\n')[0];
  return first === undefined || first === '' ? undefined : first.slice(0, 200);
}
