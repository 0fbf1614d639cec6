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
 *   merge candidate, the published version, the error mapping).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

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

/** broker.go `Gateway` with its `mcpCaller`: one initialized MCP session per bearer, rebuilt once on failure. */
export class LibraryGateway {
  readonly #mcpUrl: string;
  readonly #pool = new Map<string, Client>();
  /** How many MCP sessions were opened: a refreshed bearer opens a new one. */
  sessionsOpened = 0;

  constructor(brokerUrl: string) {
    this.#mcpUrl = `${brokerUrl.replace(/\/+$/, '')}/mcp`;
  }

  async callTool(
    token: string,
    tool: string,
    args: Record<string, unknown> | undefined,
  ): Promise<{ text: string; isError: boolean }> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      const client = await this.#clientFor(token);
      try {
        const result = await client.callTool({ name: tool, ...(args === undefined ? {} : { arguments: args }) });
        const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
        const text = content
          .filter((c) => c.type === 'text')
          .map((c) => c.text ?? '')
          .join('');
        return { text, isError: result.isError === true };
      } catch (error) {
        this.#pool.delete(token);
        await client.close().catch(() => undefined);
        lastError = error;
        if (isUnauthorized(error)) throw new UnauthorizedError('broker refused the bearer', { cause: error });
      }
    }
    throw lastError;
  }

  async #clientFor(token: string): Promise<Client> {
    const pooled = this.#pool.get(token);
    if (pooled !== undefined) return pooled;
    const client = new Client({ name: 'demarkus-library', version: '0.1.0' });
    const transport = new StreamableHTTPClientTransport(new URL(this.#mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    try {
      await client.connect(transport);
    } catch (error) {
      await client.close().catch(() => undefined);
      if (isUnauthorized(error)) throw new UnauthorizedError('broker refused the bearer', { cause: error });
      throw error;
    }
    this.sessionsOpened++;
    this.#pool.set(token, client);
    return client;
  }

  async close(): Promise<void> {
    for (const client of this.#pool.values()) await client.close().catch(() => undefined);
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

function isUnauthorized(error: unknown): boolean {
  const text = String((error as { message?: unknown } | null)?.message ?? error);
  return (error as { code?: unknown } | null)?.code === 401 || /\b401\b|unauthorized/i.test(text);
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
