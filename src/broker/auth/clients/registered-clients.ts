/**
 * Clients registered through RFC 7591, kept durably in one state document
 * (`registered_clients.json`) so every replica and every restart knows them.
 * Bounded: when full, registrations never used within a day are dropped
 * first; if the store is still full, registration is refused.
 */
import { OAuthError } from '../oauth-error.ts';
import { randomSecret, sha256Hex } from '../secrets.ts';
import { jsonDocument, signInDocuments, type JsonDocument, type StateDocumentStore } from '../../state/index.ts';
import type { OAuthClient, TokenEndpointAuthMethod } from './client.ts';
import type { ClientRegistration } from './registration-request.ts';

type StoredClient = {
  clientId: string;
  name?: string;
  redirectUris: string[];
  grantTypes: string[];
  authMethod: TokenEndpointAuthMethod;
  secretHash?: string;
  applicationType?: string;
  issuedAt: number;
  lastUsedAt?: number;
};

type ClientsDocument = { clients: Record<string, StoredClient> };

export type RegisteredClient = {
  client: OAuthClient;
  issuedAt: number;
  grantTypes: string[];
  applicationType?: string;
  secret?: string;
};

export type RegisteredClientsOptions = { maxClients?: number; now?: () => number };

const defaultMaxClients = 1000;
const unusedGraceMs = 24 * 3_600_000;
const touchEveryMs = 3_600_000;

const isDocument = (value: unknown): value is ClientsDocument =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ClientsDocument).clients === 'object' &&
  (value as ClientsDocument).clients !== null;

export class RegisteredClients {
  readonly #document: JsonDocument<ClientsDocument>;
  readonly #maxClients: number;
  readonly #now: () => number;
  /** Registrations are never edited, only dropped when unused: a found client may be cached. */
  readonly #cache = new Map<string, OAuthClient>();

  constructor(store: StateDocumentStore, options: RegisteredClientsOptions = {}) {
    this.#document = jsonDocument(store, signInDocuments.registeredClients, () => ({ clients: {} }), isDocument);
    this.#maxClients = options.maxClients ?? defaultMaxClients;
    this.#now = options.now ?? Date.now;
  }

  async register(registration: ClientRegistration): Promise<RegisteredClient> {
    const now = this.#now();
    const clientId = randomSecret(16);
    const secret = registration.authMethod === 'none' ? undefined : randomSecret(32);
    const stored: StoredClient = {
      clientId,
      redirectUris: registration.redirectUris,
      grantTypes: registration.grantTypes,
      authMethod: registration.authMethod,
      issuedAt: Math.floor(now / 1000),
      ...(registration.clientName === undefined ? {} : { name: registration.clientName }),
      ...(secret === undefined ? {} : { secretHash: sha256Hex(secret) }),
      ...(registration.applicationType === undefined ? {} : { applicationType: registration.applicationType }),
    };
    const admitted = await this.#document.update((doc) => {
      const clients = { ...doc.clients };
      if (Object.keys(clients).length >= this.#maxClients) dropUnused(clients, now);
      if (Object.keys(clients).length >= this.#maxClients) return { outcome: false };
      clients[clientId] = stored;
      return { next: { clients }, outcome: true };
    });
    if (!admitted) throw new OAuthError('temporarily_unavailable', 'client registration is full; try again later');
    return { ...describe(stored), ...(secret === undefined ? {} : { secret }) };
  }

  async find(clientId: string): Promise<OAuthClient | null> {
    const cached = this.#cache.get(clientId);
    if (cached !== undefined) return cached;
    const clients = (await this.#document.read()).clients;
    if (!Object.hasOwn(clients, clientId)) return null;
    const client = toClient(clients[clientId]!);
    if (this.#cache.size >= this.#maxClients) this.#cache.clear();
    this.#cache.set(clientId, client);
    return client;
  }

  /** Records that a client obtained tokens (at most once an hour), which protects it from the unused-registration sweep. */
  async touch(clientId: string): Promise<void> {
    const now = Math.floor(this.#now() / 1000);
    await this.#document.update((doc) => {
      const stored = doc.clients[clientId];
      if (stored === undefined || (stored.lastUsedAt !== undefined && now - stored.lastUsedAt < touchEveryMs / 1000))
        return { outcome: undefined };
      return { next: { clients: { ...doc.clients, [clientId]: { ...stored, lastUsedAt: now } } }, outcome: undefined };
    });
  }

  async count(): Promise<number> {
    return Object.keys((await this.#document.read()).clients).length;
  }
}

function dropUnused(clients: Record<string, StoredClient>, nowMs: number): void {
  for (const [id, stored] of Object.entries(clients)) {
    if (stored.lastUsedAt === undefined && nowMs - stored.issuedAt * 1000 > unusedGraceMs) delete clients[id];
  }
}

function toClient(stored: StoredClient): OAuthClient {
  return {
    clientId: stored.clientId,
    kind: 'registered',
    name: stored.name ?? 'unnamed client',
    redirectUris: stored.redirectUris,
    authMethod: stored.authMethod,
    grantTypes: stored.grantTypes,
    firstParty: false,
    ...(stored.secretHash === undefined ? {} : { secretHash: stored.secretHash }),
  };
}

function describe(stored: StoredClient): RegisteredClient {
  return {
    client: toClient(stored),
    issuedAt: stored.issuedAt,
    grantTypes: stored.grantTypes,
    ...(stored.applicationType === undefined ? {} : { applicationType: stored.applicationType }),
  };
}
