/**
 * A stand-in for the organisation's library web app (the Go app at
 * github.com/latebit-io/demarkus-library, which cannot run here), written to
 * take the same steps its adapters take, in the same order, with the same
 * requests and the same parsing of the answers:
 *
 * - `LibraryOAuth`: internal/adapter/outbound/oauth/oauth.go and pkce.go:
 *   RFC 8414 discovery cached for 5 minutes, authorize with PKCE S256 and its
 *   configured scopes (no `openid`, no `resource`), code and refresh grants
 *   with HTTP Basic of form-encoded halves, `id_token` required in every
 *   token response, `invalid_grant` and `invalid_client` mapped to their own
 *   errors, revocation at the fixed path `/token/revoke`.
 * - `LibrarySessions`: internal/adapter/inbound/web/session/manager.go: the
 *   session keeps the id_token as its bearer, refreshes it 30 s before
 *   expiry, keeps a rotated refresh token when one comes back, drops the
 *   session on a dead grant, and revokes on logout.
 * - `LibraryGateway`: internal/adapter/outbound/broker/broker.go: one MCP
 *   session per bearer, the tools and arguments it sends, and its text
 *   parsers (status/metadata head, the worlds table, the catalog table, the
 *   merge candidate, the published version, the error mapping). The MCP
 *   requests are mcp-go v0.44.0's (the library's go.mod), written out here
 *   rather than made by the TypeScript SDK, which would send other ones (a
 *   GET stream after initialize, a DELETE with the bearer).
 * - `readHub`: internal/core/service/hub.go, the floor's read of the hub
 *   world's `/graph.md` and its parse of the export's tables.
 *
 * Where the library's steps do not work against this broker, the test says
 * so and docs/decisions.md ("what the library must change") says why.
 */
import { createHash, randomBytes } from 'node:crypto';

export class InvalidGrantError extends Error {}
export class InvalidClientError extends Error {}
export class LoginRequiredError extends Error {}
export class UnauthorizedError extends Error {}
export class ConflictError extends Error {}
export class NotFoundError extends Error {}

export type LibraryConfig = {
  brokerUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** DEMARKUS_SCOPES, space-separated in the environment. */
  scopes: string[];
};

export type TokenSet = { idToken: string; refreshToken: string; expiry: number };

const discoveryTtlMs = 5 * 60_000;

/** oauth.go `Client`. */
export class LibraryOAuth {
  readonly #config: LibraryConfig;
  #cached: { authorization_endpoint: string; token_endpoint: string } | undefined;
  #fetchedAt = 0;
  now: () => number = Date.now;

  constructor(config: LibraryConfig) {
    this.#config = config;
  }

  async #endpoints() {
    if (this.#cached !== undefined && this.now() - this.#fetchedAt < discoveryTtlMs) return this.#cached;
    const response = await fetch(
      `${this.#config.brokerUrl.replace(/\/+$/, '')}/.well-known/oauth-authorization-server`,
    );
    if (response.status !== 200) throw new Error(`oauth: discovery returned ${response.status}`);
    const document = (await response.json()) as Record<string, unknown>;
    const authorization = document.authorization_endpoint;
    const token = document.token_endpoint;
    if (typeof authorization !== 'string' || authorization === '' || typeof token !== 'string' || token === '')
      throw new Error('oauth: discovery document missing endpoints');
    this.#cached = { authorization_endpoint: authorization, token_endpoint: token };
    this.#fetchedAt = this.now();
    return this.#cached;
  }

  /** brokerauth.go `Begin`: state and verifier minted here, the URL built by `AuthCodeURL`. */
  async begin(): Promise<{ authUrl: string; state: string; verifier: string }> {
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const { authorization_endpoint } = await this.#endpoints();
    const query = new URLSearchParams({
      code_challenge: challenge,
      code_challenge_method: 'S256',
      client_id: this.#config.clientId,
      redirect_uri: this.#config.redirectUri,
      response_type: 'code',
      state,
    });
    if (this.#config.scopes.length > 0) query.set('scope', this.#config.scopes.join(' '));
    return { authUrl: `${authorization_endpoint}?${query}`, state, verifier };
  }

  exchange(code: string, verifier: string): Promise<TokenSet> {
    return this.#token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.#config.redirectUri,
      code_verifier: verifier,
    });
  }

  refresh(refreshToken: string): Promise<TokenSet> {
    return this.#token({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  /** RFC 7009 at the path the library hard-codes (it is not read from discovery). */
  async revoke(refreshToken: string): Promise<void> {
    const response = await fetch(`${this.#config.brokerUrl.replace(/\/+$/, '')}/token/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: this.#basic() },
      body: new URLSearchParams({ token: refreshToken }).toString(),
    });
    await response.body?.cancel();
    if (response.status < 200 || response.status > 299) throw new Error(`oauth: revoke returned ${response.status}`);
  }

  async #token(form: Record<string, string>): Promise<TokenSet> {
    const { token_endpoint } = await this.#endpoints();
    const response = await fetch(token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: this.#basic() },
      body: new URLSearchParams(form).toString(),
    });
    const body = await response.text();
    if (response.status !== 200) {
      let error = '';
      try {
        error = String((JSON.parse(body) as { error?: unknown }).error ?? '');
      } catch {}
      if (error === 'invalid_grant') throw new InvalidGrantError('oauth: grant rejected by broker');
      if (error === 'invalid_client') throw new InvalidClientError('oauth: client authentication rejected by broker');
      throw new Error(`oauth: token endpoint returned ${error || response.status}`);
    }
    const parsed = JSON.parse(body) as { id_token?: unknown; refresh_token?: unknown; expires_in?: unknown };
    const idToken = typeof parsed.id_token === 'string' ? parsed.id_token : '';
    if (idToken === '') throw new Error('oauth: token response missing id_token');
    return {
      idToken,
      refreshToken: typeof parsed.refresh_token === 'string' ? parsed.refresh_token : '',
      expiry: this.now() + (typeof parsed.expires_in === 'number' ? parsed.expires_in : 0) * 1000,
    };
  }

  /** RFC 6749 §2.3.1 as the library does it: each half form-urlencoded (Go's url.QueryEscape), then Basic. */
  #basic(): string {
    const pair = `${queryEscape(this.#config.clientId)}:${queryEscape(this.#config.clientSecret)}`;
    return `Basic ${Buffer.from(pair).toString('base64')}`;
  }
}

/** Go's url.QueryEscape: like encodeURIComponent, but `!'()*` escaped too and spaces as `+`. */
function queryEscape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

type Session = { id: string; idToken: string; refreshToken: string; idTokenExpiry: number };

const refreshSkewMs = 30_000;

/** manager.go `Manager` over its in-memory store. */
export class LibrarySessions {
  readonly #store = new Map<string, Session>();
  readonly #authority: LibraryOAuth;
  now: () => number = Date.now;

  constructor(authority: LibraryOAuth) {
    this.#authority = authority;
  }

  create(tokens: TokenSet): Session {
    const session = {
      id: randomBytes(32).toString('base64url'),
      idToken: tokens.idToken,
      refreshToken: tokens.refreshToken,
      idTokenExpiry: tokens.expiry,
    };
    this.#store.set(session.id, session);
    return { ...session };
  }

  /** The bearer for the next /mcp call, refreshed when it has less than the skew left. */
  async token(sessionId: string): Promise<string> {
    const session = this.#store.get(sessionId);
    if (session === undefined) throw new LoginRequiredError('session: login required');
    if (this.now() + refreshSkewMs < session.idTokenExpiry) return session.idToken;
    let tokens: TokenSet;
    try {
      tokens = await this.#authority.refresh(session.refreshToken);
    } catch (error) {
      if (error instanceof InvalidGrantError) {
        this.#store.delete(sessionId);
        throw new LoginRequiredError('session: login required', { cause: error });
      }
      throw error;
    }
    session.idToken = tokens.idToken;
    session.idTokenExpiry = tokens.expiry;
    if (tokens.refreshToken !== '') session.refreshToken = tokens.refreshToken;
    return session.idToken;
  }

  peek(sessionId: string): Session | undefined {
    const session = this.#store.get(sessionId);
    return session === undefined ? undefined : { ...session };
  }

  async logout(sessionId: string): Promise<void> {
    const session = this.#store.get(sessionId);
    if (session === undefined) return;
    await this.#authority.revoke(session.refreshToken).catch(() => undefined);
    this.#store.delete(sessionId);
  }
}

export type RawDocument = { source: string; path: string; body: string; metadata: Record<string, string> };
export type WorldInfo = { name: string; url: string; address: string };
export type MergeCandidate = { body: string; publishAtVersion: number; hasMarkers: boolean };
export type CatalogDoc = { path: string; title: string; importance: number; tags: string[] };

/** The protocol revision mcp-go v0.44.0 asks for (mcp/types.go `LATEST_PROTOCOL_VERSION`), set by broker.go `clientOf`. */
export const goMcpProtocolVersion = '2025-11-25';
/** mcp/types.go `ValidProtocolVersions`: `Initialize` refuses a server that answers any other. */
const goValidProtocolVersions = [goMcpProtocolVersion, '2025-06-18', '2025-03-26', '2024-11-05'];

export class SessionTerminatedError extends Error {}

type JsonRpcReply = { id?: unknown; result?: Record<string, unknown>; error?: { code?: unknown; message?: unknown } };

/**
 * One MCP session as mcp-go v0.44.0 holds it: `client.Client.Initialize` over
 * `transport.StreamableHTTP` (client/transport/streamable_http.go), built the
 * way broker.go `clientOf` builds it (`WithHTTPHeaders` with the bearer, no
 * continuous listening: no GET stream is ever opened). Every POST carries
 * `Content-Type: application/json`, `Accept: application/json,
 * text/event-stream`, the session id and the negotiated revision once known,
 * then the custom headers (`sendHTTP`). A 404 ends the session
 * (`ErrSessionTerminated`), a 401 is `ErrUnauthorized`. `Close` sends DELETE
 * with the session id and the revision but NOT the custom headers, so without
 * the bearer.
 */
class GoMcpSession {
  readonly #url: string;
  readonly #headers: Record<string, string>;
  #sessionId = '';
  #nextId = 0;
  protocolVersion = '';

  constructor(url: string, headers: Record<string, string>) {
    this.#url = url;
    this.#headers = headers;
  }

  /** client.go `Initialize`: the request, the revision check, then `notifications/initialized`. */
  async initialize(): Promise<void> {
    const result = await this.request('initialize', {
      protocolVersion: goMcpProtocolVersion,
      clientInfo: { name: 'demarkus-library', version: '0.1.0' },
      capabilities: {},
    });
    const version = String(result.protocolVersion ?? '');
    if (!goValidProtocolVersions.includes(version)) throw new Error(`unsupported protocol version: "${version}"`);
    this.protocolVersion = version;
    const response = await this.#post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await response.body?.cancel();
    if (response.status === 401) throw new UnauthorizedError('unauthorized (401)');
    if (![200, 202, 204].includes(response.status))
      throw new Error(`notification failed with status ${response.status}`);
  }

  /** `SendRequest`: a JSON or SSE answer; a JSON-RPC error is the call's error. */
  async request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const response = await this.#post({ jsonrpc: '2.0', id, method, params });
    if (response.status !== 200 && response.status !== 202) {
      const body = await response.text();
      if (response.status === 401) throw new UnauthorizedError('unauthorized (401)');
      let reply: JsonRpcReply | undefined;
      try {
        reply = JSON.parse(body) as JsonRpcReply;
      } catch {}
      if (reply?.error === undefined) throw new Error(`request failed with status ${response.status}: ${body}`);
      throw new Error(`${String(reply.error.message)} (${String(reply.error.code)})`);
    }
    if (method === 'initialize') this.#sessionId = response.headers.get('mcp-session-id') ?? '';
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    let reply: JsonRpcReply;
    if (type === 'application/json') reply = (await response.json()) as JsonRpcReply;
    else if (type === 'text/event-stream') reply = await replyFromStream(response, id);
    else throw new Error(`unexpected content type: ${type}`);
    if (reply.error !== undefined) throw new Error(`${String(reply.error.message)} (${String(reply.error.code)})`);
    return reply.result ?? {};
  }

  /** `Close`: DELETE with the session id and the revision, without the custom headers; the status is returned for the test. */
  async close(): Promise<number | undefined> {
    if (this.#sessionId === '') return undefined;
    const headers: Record<string, string> = { 'mcp-session-id': this.#sessionId };
    if (this.protocolVersion !== '') headers['mcp-protocol-version'] = this.protocolVersion;
    this.#sessionId = '';
    const response = await fetch(this.#url, { method: 'DELETE', headers });
    await response.body?.cancel();
    return response.status;
  }

  async #post(message: Record<string, unknown>): Promise<Response> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const sessionId = this.#sessionId;
    if (sessionId !== '') headers['mcp-session-id'] = sessionId;
    if (this.protocolVersion !== '') headers['mcp-protocol-version'] = this.protocolVersion;
    Object.assign(headers, this.#headers);
    const response = await fetch(this.#url, { method: 'POST', headers, body: JSON.stringify(message) });
    if (response.status === 404) {
      await response.body?.cancel();
      if (this.#sessionId === sessionId) this.#sessionId = '';
      throw new SessionTerminatedError('session terminated (404). need to re-initialize');
    }
    return response;
  }
}

/** `handleSSEResponse`: read `data:` events until the reply with this id; notifications are skipped. */
async function replyFromStream(response: Response, id: number): Promise<JsonRpcReply> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('sse stream ended without a response');
      buffered += value.replace(/\r\n/g, '\n');
      let cut = buffered.indexOf('\n\n');
      while (cut >= 0) {
        const event = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data !== '') {
          const message = JSON.parse(data) as JsonRpcReply;
          if (message.id === id) return message;
        }
        cut = buffered.indexOf('\n\n');
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** broker.go `Gateway` with its `mcpCaller`: one initialized MCP session per bearer, rebuilt once on failure. */
export class LibraryGateway {
  readonly #mcpUrl: string;
  readonly #pool = new Map<string, GoMcpSession>();
  /** How many MCP sessions were opened: a refreshed bearer opens a new one. */
  sessionsOpened = 0;
  /** The broker's answers to the DELETEs that ended sessions (mcp-go `Close`). */
  readonly closeStatuses: Array<number | undefined> = [];

  constructor(brokerUrl: string) {
    this.#mcpUrl = `${brokerUrl.replace(/\/+$/, '')}/mcp`;
  }

  /** The revision the broker answered to this bearer's session. */
  protocolVersionOf(token: string): string | undefined {
    return this.#pool.get(token)?.protocolVersion;
  }

  /** `mcpCaller.callTool`: an initialize failure is final; a failed call is retried once on a new session, unless the bearer was refused. */
  async callTool(
    token: string,
    tool: string,
    args: Record<string, unknown> | undefined,
  ): Promise<{ text: string; isError: boolean }> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      const session = await this.#sessionFor(token);
      try {
        // mcp-go's CallToolParams leaves `arguments` out when nil (`omitempty`), as for mark_worlds.
        const result = await this.#call(session, tool, args);
        const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
        const text = content
          .filter((c) => c.type === 'text')
          .map((c) => c.text ?? '')
          .join('');
        return { text, isError: result.isError === true };
      } catch (error) {
        await this.#invalidate(token, session);
        lastError = error;
        if (error instanceof UnauthorizedError) break;
      }
    }
    throw lastError;
  }

  #call(session: GoMcpSession, tool: string, args: Record<string, unknown> | undefined) {
    return session.request('tools/call', { name: tool, ...(args === undefined ? {} : { arguments: args }) });
  }

  /** `clientOf`: build and initialize under the pool; a failed initialize closes its client. */
  async #sessionFor(token: string): Promise<GoMcpSession> {
    const pooled = this.#pool.get(token);
    if (pooled !== undefined) return pooled;
    const session = new GoMcpSession(this.#mcpUrl, { Authorization: `Bearer ${token}` });
    try {
      await session.initialize();
    } catch (error) {
      this.closeStatuses.push(await session.close().catch(() => undefined));
      throw error;
    }
    this.sessionsOpened++;
    this.#pool.set(token, session);
    return session;
  }

  async #invalidate(token: string, session: GoMcpSession): Promise<void> {
    if (this.#pool.get(token) !== session) return;
    this.#pool.delete(token);
    this.closeStatuses.push(await session.close().catch(() => undefined));
  }

  /** `mcpCaller.close` at shutdown: every pooled session closed. */
  async close(): Promise<void> {
    for (const session of this.#pool.values()) this.closeStatuses.push(await session.close().catch(() => undefined));
    this.#pool.clear();
  }

  fetch(token: string, world: string, path: string) {
    return this.#read(token, 'mark_fetch', world, path, { url: markUrl(world, path) });
  }

  list(token: string, world: string, path: string) {
    return this.#read(token, 'mark_list', world, path, { url: markUrl(world, path) });
  }

  versions(token: string, world: string, path: string) {
    return this.#read(token, 'mark_versions', world, path, { url: markUrl(world, path) });
  }

  lookup(token: string, world: string, scope: string, query: string, filter: string, limit: number) {
    const args: Record<string, unknown> = { url: markUrl(world, scope), query };
    if (filter !== '') args.filter = filter;
    if (limit > 0) args.limit = limit;
    return this.#read(token, 'mark_lookup', world, scope, args);
  }

  async worlds(token: string): Promise<WorldInfo[]> {
    const { text, isError } = await this.callTool(token, 'mark_worlds', undefined);
    if (isError) throw mapToolError(text);
    return parseWorldsTable(text);
  }

  /** `on_conflict` by intent: `fail` for a create (version 0), `merge` for an edit. */
  async publish(
    token: string,
    world: string,
    path: string,
    body: string,
    meta: { title?: string; tags?: string[]; importance?: string },
    expectedVersion: number,
  ): Promise<{ version: number; merge?: MergeCandidate }> {
    const metadata: Record<string, string> = {};
    if (meta.title) metadata.title = meta.title;
    if (meta.tags && meta.tags.length > 0) metadata.tags = meta.tags.join(',');
    if (meta.importance) metadata.importance = meta.importance;
    const args: Record<string, unknown> = {
      url: markUrl(world, path),
      body,
      expected_version: expectedVersion,
      on_conflict: expectedVersion === 0 ? 'fail' : 'merge',
    };
    if (Object.keys(metadata).length > 0) args.metadata = metadata;
    const { text, isError } = await this.callTool(token, 'mark_publish', args);
    if (isError) throw mapWriteError(text);
    const merge = parseMergeCandidate(text);
    if (merge !== null) return { version: 0, merge };
    return { version: parsePublishedVersion(text) };
  }

  async append(token: string, world: string, path: string, body: string): Promise<number> {
    const { text, isError } = await this.callTool(token, 'mark_append', { url: markUrl(world, path), body });
    if (isError) throw mapWriteError(text);
    return parsePublishedVersion(text);
  }

  async #read(
    token: string,
    tool: string,
    world: string,
    path: string,
    args: Record<string, unknown>,
  ): Promise<RawDocument> {
    const { text, isError } = await this.callTool(token, tool, args);
    if (isError) throw mapToolError(text);
    return parseToolResult(world, path, text);
  }
}

function markUrl(world: string, path: string): string {
  return `mark://${world}${path}`;
}

export function mapToolError(text: string): Error {
  if (text.includes('not authorized')) return new UnauthorizedError(text);
  return new Error(`broker tool error: ${text}`);
}

export function mapWriteError(text: string): Error {
  const low = text.toLowerCase();
  if (low.includes('conflict') || low.includes('expected version') || low.includes('version mismatch'))
    return new ConflictError(text);
  if (low.includes('not authorized') || low.includes('not permitted')) return new UnauthorizedError(text);
  return new Error(`broker write error: ${text}`);
}

/** `parseToolResult`: a `status:` first line, `key: value` lines, a blank line, the body. */
export function parseToolResult(world: string, path: string, text: string): RawDocument {
  const cut = text.indexOf('\n\n');
  const head = cut < 0 ? text : text.slice(0, cut);
  const body = cut < 0 ? '' : text.slice(cut + 2);
  let status = '';
  const metadata: Record<string, string> = {};
  head.split('\n').forEach((line, index) => {
    const colon = line.indexOf(': ');
    if (colon < 0) return;
    const key = line.slice(0, colon);
    const value = line.slice(colon + 2);
    if (index === 0 && key === 'status') status = value;
    else metadata[key] = value;
  });
  switch (status) {
    case 'ok':
      return { source: world, path, body, metadata };
    case 'not-found':
    case 'archived':
      throw new NotFoundError(status);
    case 'unauthorized':
    case 'not-permitted':
      throw new UnauthorizedError(status);
    default:
      throw new Error(`broker returned status: ${status}`);
  }
}

/** `parseWorldsTable`: rows of `| world | url | address |`, header and separator skipped by shape. */
export function parseWorldsTable(text: string): WorldInfo[] {
  const out: WorldInfo[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('|')) continue;
    const cells = line.replace(/^\|+|\|+$/g, '').split('|');
    const name = (cells[0] ?? '').trim();
    if (name === '' || name === 'world' || name.startsWith('-')) continue;
    out.push({ name, url: (cells[1] ?? '').trim(), address: (cells[2] ?? '').trim() });
  }
  return out;
}

/** floor.go `parseCatalogTable`: `| Path | Importance | Title | Tags |` rows of a LOOKUP body. */
export function parseCatalogTable(body: string, limit: number): CatalogDoc[] {
  const out: CatalogDoc[] = [];
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('|')) continue;
    const cells = line.replace(/^\|+|\|+$/g, '').split('|');
    if (cells.length < 4) continue;
    const path = unescapeMarkdown(cells[0]!.trim());
    if (path === '' || path === 'Path' || path.startsWith('-') || !path.startsWith('/')) continue;
    const importance = Number.parseFloat(cells[1]!.trim());
    const title = unescapeMarkdown(cells[2]!.trim()) || path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, '');
    const tags = unescapeMarkdown(cells[3]!.trim())
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    out.push({ path, title, importance: Number.isNaN(importance) ? 0 : importance, tags });
    if (out.length >= limit) break;
  }
  return out;
}

function unescapeMarkdown(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** `parseMergeCandidate`: `status: merge-candidate` with `publish-at-version` and `has-markers`, then the body. */
export function parseMergeCandidate(text: string): MergeCandidate | null {
  const cut = text.indexOf('\n\n');
  if (cut < 0) return null;
  let status = '';
  let version: number | undefined;
  let hasMarkers = false;
  for (const line of text.slice(0, cut).split('\n')) {
    const trimmed = line.trim();
    const colon = trimmed.indexOf(': ');
    if (colon < 0) continue;
    const key = trimmed.slice(0, colon);
    const value = trimmed.slice(colon + 2).trim();
    if (key === 'status') status = value;
    if (key === 'publish-at-version') {
      if (!/^[+-]?\d+$/.test(value)) return null;
      version = Number(value);
    }
    if (key === 'has-markers') hasMarkers = value === 'true';
  }
  if (status !== 'merge-candidate' || version === undefined) return null;
  return { body: text.slice(cut + 2), publishAtVersion: version, hasMarkers };
}

/** `parsePublishedVersion`: the first `version: N` line, 0 when there is none. */
export function parsePublishedVersion(text: string): number {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('version:')) continue;
    const value = line.slice('version:'.length).trim();
    if (/^[+-]?\d+$/.test(value)) return Number(value);
  }
  return 0;
}

export type HubRef = { world: string; path: string };
export type HubTopology = { nodes: Array<HubRef & { status: string }>; edges: Array<{ from: HubRef; to: HubRef }> };

/** hub.go `hubGraphPath`: the hub world's published graph export. */
const hubGraphPath = '/graph.md';

/** hub.go `readHub`: the hub's `/graph.md` through mark_fetch; no hub or any failure is an empty topology. */
export async function readHub(gateway: LibraryGateway, token: string, hub: string): Promise<HubTopology> {
  if (hub === '') return { nodes: [], edges: [] };
  try {
    return parseGraphExport((await gateway.fetch(token, hub, hubGraphPath)).body);
  } catch {
    return { nodes: [], edges: [] };
  }
}

/**
 * hub.go `parseGraphExport`: every `|` row split on `|`; four cells or more
 * is a node (`| URL | Title | Status | Links |`), exactly two an edge
 * (`| From | To |`); rows whose first cell is not a mark:// URL are skipped.
 */
export function parseGraphExport(body: string): HubTopology {
  const topology: HubTopology = { nodes: [], edges: [] };
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('|')) continue;
    const cells = line
      .replace(/^\|+|\|+$/g, '')
      .split('|')
      .map((cell) => cell.trim());
    if (cells.length >= 4) {
      const ref = parseMarkRef(unlinkMarkdown(cells[0]!));
      if (ref !== null) topology.nodes.push({ ...ref, status: cells[2]! });
    } else if (cells.length === 2) {
      const from = parseMarkRef(cells[0]!);
      const to = parseMarkRef(cells[1]!);
      if (from !== null && to !== null) topology.edges.push({ from, to });
    }
  }
  return topology;
}

/** hub.go `parseMarkRef`: `mark://host[:port]/path` to (lower-case host, path), `/` when there is none. */
function parseMarkRef(value: string): HubRef | null {
  const text = value.trim();
  if (!text.startsWith('mark://')) return null;
  const rest = text.slice('mark://'.length);
  if (rest === '') return null;
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  if (host === '') return null;
  const path = slash < 0 || slash === rest.length - 1 ? '/' : `/${rest.slice(slash + 1)}`;
  return { world: host.toLowerCase(), path };
}

/** hub.go `unlinkMD`: `[text](url)` to its url. */
function unlinkMarkdown(value: string): string {
  if (!value.startsWith('[')) return value;
  const open = value.indexOf('](');
  const close = value.lastIndexOf(')');
  return open >= 0 && close > open + 1 ? value.slice(open + 2, close) : value;
}
