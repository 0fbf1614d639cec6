/**
 * Client ID Metadata Documents (MCP authorization 2025-11-25, "Client ID
 * Metadata Documents"; draft-ietf-oauth-client-id-metadata-document): a
 * `client_id` that is an https URL with a path names a JSON document the
 * client hosts. The broker fetches it (guarded against SSRF), requires its
 * `client_id` to equal the URL exactly, requires `client_name` and
 * `redirect_uris`, accepts only public clients, and caches it per its
 * Cache-Control within bounds.
 */
import { OAuthError } from '../oauth-error.ts';
import type { OAuthClient } from './client.ts';
import { checkRedirectUri, defaultGrantTypes, supportedGrantTypes } from './registration-request.ts';
import { guardedGet, type FetchedDocument } from './guarded-fetch.ts';
import { isLoopbackUrlHost } from '../../../transport/loopback.ts';
import { fetchFailureReason } from '../../../errors/fetch-failure.ts';

export type MetadataDocumentOptions = {
  /** Development and tests: admit http://localhost and 127.0.0.1 documents. Never in production. */
  allowLoopback?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  fetchDocument?: (url: URL) => Promise<FetchedDocument>;
  now?: () => number;
};

const defaultTtlMs = 5 * 60_000;
const maxTtlMs = 24 * 3_600_000;
const maxCacheEntries = 500;
/** A document that could not be fetched or was refused is not fetched again for this long. */
export const failureTtlMs = 60_000;

export class ClientMetadataDocuments {
  readonly #allowLoopback: boolean;
  readonly #fetch: (url: URL) => Promise<FetchedDocument>;
  readonly #now: () => number;
  readonly #cache = new Map<string, { client: OAuthClient; expiresAt: number }>();
  /** Negative cache: each authorize request naming a broken document must not re-fetch it. */
  readonly #failures = new Map<string, { error: OAuthError; expiresAt: number }>();

  constructor(options: MetadataDocumentOptions = {}) {
    this.#allowLoopback = options.allowLoopback ?? false;
    const fetchOptions = {
      timeoutMs: options.timeoutMs ?? 5000,
      maxBytes: options.maxBytes ?? 16 * 1024,
      allowLoopback: this.#allowLoopback,
    };
    this.#fetch = options.fetchDocument ?? ((url) => guardedGet(url, fetchOptions));
    this.#now = options.now ?? Date.now;
  }

  /** Whether `clientId` has the form of a metadata-document URL (and so must be resolved by fetching it). */
  isDocumentUrl(clientId: string): boolean {
    return (
      clientId.startsWith('https://') ||
      (this.#allowLoopback && /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])[:/]/.test(clientId))
    );
  }

  async resolve(clientId: string): Promise<OAuthClient> {
    const cached = this.#cache.get(clientId);
    if (cached !== undefined && cached.expiresAt > this.#now()) return cached.client;
    const failed = this.#failures.get(clientId);
    if (failed !== undefined && failed.expiresAt > this.#now()) throw failed.error;
    try {
      return await this.#fetchAndParse(clientId);
    } catch (error) {
      if (error instanceof OAuthError) {
        this.#failures.delete(clientId);
        if (this.#failures.size >= maxCacheEntries) this.#failures.delete(this.#failures.keys().next().value!);
        this.#failures.set(clientId, { error, expiresAt: this.#now() + failureTtlMs });
      }
      throw error;
    }
  }

  async #fetchAndParse(clientId: string): Promise<OAuthClient> {
    const url = this.#checkedUrl(clientId);
    let fetched: FetchedDocument;
    try {
      fetched = await this.#fetch(url);
    } catch (cause) {
      // Shown on the sign-in page: the person learns what happened and who can fix it.
      throw new OAuthError(
        'invalid_client',
        `the app identified itself with a client metadata document at ${clientId}, which could not be fetched by this broker (it may have no way out to the internet). Ask the broker's operator to set oauth.clientMetadataDocuments.disabled: true, so apps register themselves instead (RFC 7591), then start the sign-in again from the app`,
        {
          detail: `client metadata document ${clientId} could not be fetched: ${fetchFailureReason(cause)}. A broker with no way out to the internet cannot read these documents: set oauth.clientMetadataDocuments.disabled: true, and clients register with RFC 7591 instead`,
          cause,
        },
      );
    }
    const client = parseDocument(clientId, fetched);
    const ttl = cacheTtlMs(fetched.cacheControl);
    if (ttl > 0) {
      if (this.#cache.size >= maxCacheEntries) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(clientId, { client, expiresAt: this.#now() + ttl });
    }
    return client;
  }

  #checkedUrl(clientId: string): URL {
    const bad = (why: string) => new OAuthError('invalid_client', `client_id URL ${why}`);
    const url = URL.canParse(clientId) ? new URL(clientId) : null;
    if (url === null) throw bad('is not a URL');
    const httpAllowed = this.#allowLoopback && isLoopbackUrlHost(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed)) throw bad('must use https');
    if (url.pathname === '/' || url.pathname === '') throw bad('must have a path');
    if (url.hash !== '' || clientId.includes('#')) throw bad('must not have a fragment');
    if (url.username !== '' || url.password !== '') throw bad('must not carry credentials');
    if (/\/\.\.?(\/|$)/.test(clientId.replace(/^[a-z]+:\/\/[^/]+/, ''))) throw bad('must not contain dot segments');
    return url;
  }
}

function parseDocument(clientId: string, fetched: FetchedDocument): OAuthClient {
  const bad = (why: string) =>
    new OAuthError('invalid_client', `client metadata document ${why}`, { detail: `${clientId}: ${why}` });
  if (fetched.status !== 200) throw bad(`answered HTTP ${fetched.status}`);
  let doc: unknown;
  try {
    doc = JSON.parse(fetched.body);
  } catch {
    throw bad('is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw bad('is not a JSON object');
  const m = doc as Record<string, unknown>;
  if (m.client_id !== clientId) throw bad('names a different client_id');
  if (typeof m.client_name !== 'string' || m.client_name.trim() === '') throw bad('has no client_name');
  if (
    !Array.isArray(m.redirect_uris) ||
    m.redirect_uris.length === 0 ||
    !m.redirect_uris.every((u) => typeof u === 'string')
  )
    throw bad('has no redirect_uris');
  if (m.client_secret !== undefined || m.client_secret_expires_at !== undefined)
    throw bad('must not carry a client secret');
  const method = m.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw bad(`uses token_endpoint_auth_method ${JSON.stringify(method)}; only "none" is supported`);
  const redirectUris = m.redirect_uris as string[];
  for (const uri of redirectUris) {
    try {
      checkRedirectUri(uri);
    } catch {
      throw bad(`lists an unacceptable redirect URI`);
    }
  }
  const grantTypes = m.grant_types ?? defaultGrantTypes;
  if (
    !Array.isArray(grantTypes) ||
    !grantTypes.every((g) => typeof g === 'string' && supportedGrantTypes.includes(g)) ||
    grantTypes.length > supportedGrantTypes.length
  )
    throw bad('lists grant_types the broker does not support');
  if (
    m.response_types !== undefined &&
    !(Array.isArray(m.response_types) && m.response_types.every((r) => r === 'code'))
  )
    throw bad('lists response_types other than "code"');
  return {
    clientId,
    kind: 'metadata-document',
    name: m.client_name.trim().slice(0, 200),
    redirectUris,
    authMethod: 'none',
    grantTypes: [...new Set(grantTypes as string[])],
    firstParty: false,
  };
}

function cacheTtlMs(cacheControl: string): number {
  if (/\bno-store\b/i.test(cacheControl)) return 0;
  const maxAge = /\bmax-age=(\d+)/i.exec(cacheControl);
  if (maxAge === null) return defaultTtlMs;
  return Math.min(maxTtlMs, Number(maxAge[1]) * 1000);
}
