/**
 * MCP tool calls to the broker over Streamable HTTP, for command-line clients
 * such as `demarkus-broker search` and `doctor`, through the SDK client
 * (@modelcontextprotocol/client): it speaks the protocol, reads JSON and SSE
 * answers and JSON-RPC errors. What is ours is the wording a person sees: the
 * transport's fetch is wrapped so an unreachable broker and an HTTP refusal
 * (with the broker's own reason from its bearer challenge or body) read as
 * one line that says what to do next.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { errorWithCode } from '../../errors/coded-error.ts';

export type BrokerToolResult = { text: string; isError: boolean };

/** The broker could not be asked, or answered something other than a tool result. */
export class BrokerCallError extends errorWithCode('ERR_BROKER_CALL') {}

/** What a BrokerToolClient (and callBrokerTool) is told beyond the URL and token. */
export type BrokerToolClientOptions = {
  /**
   * Added to every failure's message, after a `;`: what the caller knows and
   * the broker cannot, e.g. that the URL was a default nobody asked for
   * (src/cli/broker-target.ts).
   */
  failureNote?: string | undefined;
};

/** One connection to the broker's MCP endpoint; `close` it when done. */
export class BrokerToolClient {
  readonly #url: string;
  readonly #failureNote: string | undefined;
  readonly #client = new Client({ name: 'demarkus-broker-cli', version: '1' });
  readonly #transport: StreamableHTTPClientTransport;
  #connected: Promise<void> | undefined;

  constructor(url: string, token: string, options: BrokerToolClientOptions = {}) {
    this.#url = url;
    this.#failureNote = options.failureNote;
    this.#transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (input, init) => this.#fetch(input, init),
    });
  }

  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<BrokerToolResult> {
    try {
      this.#connected ??= this.#client.connect(this.#transport);
      await this.#connected;
      const result = await this.#client.callTool({ name, arguments: args }, signal ? { signal } : {});
      const text = (result.content as { type: string; text?: string }[])
        .filter((c) => c.type === 'text')
        .map((c) => c.text ?? '')
        .join('');
      return { text, isError: result.isError === true };
    } catch (error) {
      const failure = callFailure(error);
      if (this.#failureNote === undefined) throw failure;
      throw new BrokerCallError(`${failure.message}; ${this.#failureNote}`, { cause: failure });
    }
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  /** The SDK's fetch, with an unreachable broker and a refused POST worded for a person. */
  async #fetch(input: string | URL, init?: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if (init?.signal?.aborted) throw error;
      throw new BrokerCallError(`cannot reach the broker at ${this.#url}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    // GET opens the optional server-to-client stream; its refusals are the SDK's to handle.
    if (response.ok || init?.method !== 'POST') return response;
    const detail = refusalDetail(response, await response.text());
    if (response.status === 401 || response.status === 403)
      throw new BrokerCallError(
        `the broker refused the token (HTTP ${response.status}: ${detail ?? 'no reason given'}); sign in again (demarkus-broker login) or pass a fresh token with --token`,
      );
    throw new BrokerCallError(
      `the broker answered HTTP ${response.status}${detail === undefined ? '' : `: ${detail}`}`,
    );
  }
}

/** One tool call on a connection of its own. */
export async function callBrokerTool(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
  options: BrokerToolClientOptions & { signal?: AbortSignal } = {},
): Promise<BrokerToolResult> {
  const client = new BrokerToolClient(url, token, options);
  try {
    return await client.call(name, args, options.signal);
  } finally {
    await client.close();
  }
}

function callFailure(error: unknown): Error {
  const ours = findCause(error, (e) => e instanceof BrokerCallError);
  if (ours !== undefined) return ours;
  if (error instanceof ProtocolError)
    return new BrokerCallError(`the broker refused the call: ${error.message} (${error.code})`, { cause: error });
  return new BrokerCallError(`the broker answered something other than a tool result: ${(error as Error).message}`, {
    cause: error,
  });
}

/** The first error in the `cause` chain that matches: the SDK may wrap what the fetch threw. */
function findCause(error: unknown, match: (e: unknown) => boolean): Error | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (match(e)) return e;
  return undefined;
}

/** The broker's own reason for a refusal: the bearer challenge's error_description, else the body's. */
function refusalDetail(response: Response, body: string): string | undefined {
  // Our own reading of the challenge: the SDK's extractWWWAuthenticateParams stops at an escaped quote
  // (RFC 9110 §5.6.4 quoted-string), and the broker's descriptions may quote a value.
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
