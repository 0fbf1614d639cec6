import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { whenClosed } from './response-closed.ts';

/** The SDK's web-standard face: `WebStandardStreamableHTTPServerTransport.handleRequest`, `createMcpHandler(...).fetch`. */
export type McpFetch = (request: Request, options: { authInfo?: AuthInfo; parsedBody?: unknown }) => Promise<Response>;

/**
 * Serves one request whose body fastify has already parsed. When `ends`
 * aborts, an event stream being served ends: the SDK's stream is cancelled
 * (as when the client goes) and the response is finished as a complete HTTP
 * response, so the client sees the stream end rather than a cut connection
 * and reconnects (src/broker/http/stream-expiry.ts: its token expired).
 */
export type NodeMcpHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  authInfo: AuthInfo | undefined,
  ends?: AbortSignal,
) => Promise<void>;

/** How `fetch` is driven. */
export type NodeMcpOptions = {
  /**
   * Whether `fetch` reads the `Request`'s signal, which then aborts when the
   * client goes before the answer is written. The SDK's 2026-07-28 handler
   * does (`createMcpHandler`: its per-request transport and its stateless
   * fallback end the exchange on abort); `WebStandardStreamableHTTPServerTransport`,
   * which serves sessions and the broker's stateless 2025-era requests, never
   * reads it. Without it the `Request` follows no signal: undici then links no
   * abort listener into it (about half of the `Request`'s cost), and no
   * `AbortController` or `close` listener is made for a JSON answer
   * (docs/benchmarks.md, "2026-12-07 broker CPU per call").
   */
  requestSignal: boolean;
};

/**
 * `toNodeHandler` of @modelcontextprotocol/node, for a body that is already
 * parsed. The SDK's adapter serialises the parsed body again into the
 * `Request` it builds, which the SDK then never reads (it takes `parsedBody`),
 * and copies every response chunk by chunk through the body stream. Here the
 * `Request` carries the method, URL, headers and, where `fetch` reads it, an
 * abort signal only, and a JSON response (every answer but an SSE stream) is
 * written in one piece. Streams (`text/event-stream`) are copied as the SDK's
 * adapter does: chunk by chunk, waiting for `drain`, stopping when the client
 * goes.
 */
export function toNodeMcpHandler(fetch: McpFetch, options: NodeMcpOptions = { requestSignal: true }): NodeMcpHandler {
  return async (req, res, parsedBody, authInfo, ends) => {
    const requestGone = options.requestSignal ? watchClient(res) : undefined;
    let response: Response;
    try {
      response = await fetch(headersOnlyRequest(req, requestGone?.signal), {
        ...(authInfo === undefined ? {} : { authInfo }),
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
    } catch {
      response = internalServerError(parsedBody);
    }
    res.statusCode = response.status;
    for (const [name, value] of response.headers) res.setHeader(name, value);
    if (response.body === null || !isEventStream(response)) {
      // Headers and body leave in one write, with a Content-Length.
      const body = response.body === null ? undefined : Buffer.from(await response.arrayBuffer());
      requestGone?.answered();
      res.end(body);
      return;
    }
    const gone = requestGone ?? watchClient(res);
    // Node holds the headers back until the first chunk, which on a quiet GET stream is the SDK's
    // keep-alive 15 s later: send them now, so the client knows at once that its stream is open.
    res.flushHeaders();
    await copyStream(response.body, res, ends === undefined ? gone.signal : AbortSignal.any([gone.signal, ends]));
    gone.answered();
    res.end();
  };
}

/** A signal that aborts when the response closes before `answered()`: the client went. */
function watchClient(res: ServerResponse): { signal: AbortSignal; answered: () => void } {
  let answered = false;
  const abort = new AbortController();
  whenClosed(res, () => {
    if (!answered) abort.abort();
  });
  return {
    signal: abort.signal,
    answered: () => {
      answered = true;
    },
  };
}

/**
 * The request line and headers as a web `Request` with no body. The URL's
 * origin is the Host header's, as the SDK's adapter builds it; header values
 * Node repeated arrive as arrays and are appended one by one.
 */
export function headersOnlyRequest(req: IncomingMessage, signal?: AbortSignal): Request {
  const host = singleHeader(req.headers.host) ?? 'localhost';
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers as IncomingHttpHeaders)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return new Request(`http://${host}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    ...(signal === undefined ? {} : { signal }),
  });
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isEventStream(response: Response): boolean {
  return response.headers.get('content-type')?.toLowerCase().startsWith('text/event-stream') === true;
}

/**
 * Copies `body` to `res` until it ends or `stop` aborts. On `stop` the body is
 * cancelled at once, even while waiting for its next chunk (a quiet stream's
 * next one is a keep-alive 15 s away): cancelling is what tells the SDK the
 * stream is gone (its `cancel` drops the session's GET stream, or tears down
 * a listen's subscription).
 */
async function copyStream(body: ReadableStream<Uint8Array>, res: ServerResponse, stop: AbortSignal): Promise<void> {
  const reader = body.getReader();
  let drained: (() => void) | undefined;
  const release = () => {
    drained?.();
    drained = undefined;
  };
  // Cancelling ends the pending read; releasing ends a wait for the client to drain.
  const onStop = () => {
    void reader.cancel().catch(() => {});
    release();
  };
  res.on('drain', release);
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || stop.aborted) break;
      if (!res.write(value) && !stop.aborted)
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
    }
  } catch {
    // The client went away or the stream failed: the response ends either way.
  } finally {
    stop.removeEventListener('abort', onStop);
    res.off('drain', release);
  }
}

/** What the SDK's adapter answers when the handler throws: a JSON-RPC internal error, echoing a request's id. */
function internalServerError(parsedBody: unknown): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: echoableId(parsedBody) },
    { status: 500 },
  );
}

function echoableId(body: unknown): string | number | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string') return null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
