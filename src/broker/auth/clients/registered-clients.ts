/**
 * Clients registered through RFC 7591. Registration is anonymous, so a
 * registration costs the broker little until a person signs in with it:
 *
 * - a new registration is one record in the short-lived store (this process's
 *   memory, or Redis shared by every replica) that expires `unusedTtlMs`
 *   (15 minutes) after it was made unless the client is used;
 * - the first time the client obtains tokens, its record moves to the durable
 *   store as a document of its own (`registered_client.<id>.json`); no
 *   registration ever rewrites another client's record;
 * - the durable records are bounded by bytes (client-record-budget.ts, 768 KiB
 *   by default, so that on Kubernetes they fit their one Secret): a first use
 *   that would pass the bound first removes the least recently used records,
 *   those of clients without a live refresh-token family before the others, so
 *   a full store never stops a new client from signing in;
 * - at most `maxClients` registrations made within one unused-TTL window wait
 *   for their first use on one replica (a place is taken before the write, so
 *   registrations in flight count); beyond that, registration answers
 *   `temporarily_unavailable` until the oldest expire. The per-address budget
 *   is charged before this, at the route (`rateLimit.registration`).
 *
 * Clients registered before this layout, in the one `registered_clients.json`
 * document, are still found: that document is read once per process and never
 * written again, and only its clients that had obtained tokens are honoured.
 */
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { OAuthError } from '../oauth-error.ts';
import { randomSecret, sha256Hex } from '../secrets.ts';
import { readRecord, toJson } from '../sign-in-records.ts';
import {
  jsonDocument,
  registeredClientDocument,
  registeredClientPrefix,
  signInDocuments,
  type EphemeralStore,
  type StateDocumentStore,
} from '../../state/index.ts';
import type { OAuthClient } from './client.ts';
import {
  defaultMaxClientRecordBytes,
  fitsRecordBudget,
  recordsToPrune,
  type RecordSummary,
} from './client-record-budget.ts';
import type { ClientRegistration } from './registration-request.ts';

const storedClient = z.object({
  clientId: z.string(),
  name: z.string().optional(),
  redirectUris: z.array(z.string()),
  grantTypes: z.array(z.string()),
  authMethod: z.enum(['none', 'client_secret_basic', 'client_secret_post']),
  secretHash: z.string().optional(),
  applicationType: z.string().optional(),
  /** Seconds since the epoch. */
  issuedAt: z.number(),
  lastUsedAt: z.number().optional(),
});
type StoredClient = z.infer<typeof storedClient>;

const legacyDocument = z.object({ clients: z.record(z.string(), z.unknown()) });

export type RegisteredClient = {
  client: OAuthClient;
  issuedAt: number;
  grantTypes: string[];
  applicationType?: string;
  secret?: string;
};

export type RegisteredClientsOptions = {
  /** Registrations awaiting their first use on this replica, at most. */
  maxClients?: number;
  /** How long a registration nobody used is kept. */
  unusedTtlMs?: number;
  /** Bytes the durable records of used clients may take together (client-record-budget.ts). */
  maxRecordBytes?: number;
  /** The clients holding a live refresh-token family: their records are pruned last. */
  liveClients?: () => Promise<ReadonlySet<string>>;
  now?: () => number;
};

const defaultMaxClients = 1000;
const defaultUnusedTtlMs = 15 * 60_000;
/** `lastUsedAt` is refreshed at most daily: each refresh is a durable write. */
const touchEverySeconds = 24 * 3600;
const maxCachedClients = 10_000;
/** The shape of the ids this store issues: 128 random bits in hex, safe as a document name everywhere. */
const clientIdShape = /^[0-9a-f]{32}$/;
const pendingKey = (clientId: string) => `client:${clientId}`;

export class RegisteredClients {
  readonly #durable: StateDocumentStore;
  readonly #ephemeral: EphemeralStore;
  readonly #maxClients: number;
  readonly #unusedTtlMs: number;
  readonly #maxRecordBytes: number;
  readonly #liveClients: () => Promise<ReadonlySet<string>>;
  readonly #now: () => number;
  /**
   * When this replica made its registrations of the last unused-TTL window,
   * oldest first; one object per place, so a failed write gives back its own.
   */
  readonly #recent: { at: number }[] = [];
  /** Durable records, which only ever change in `lastUsedAt`; least recently used goes first. */
  readonly #cache = new LRUCache<string, StoredClient>({ max: maxCachedClients });
  #legacy: Promise<ReadonlyMap<string, StoredClient>> | undefined;
  #legacyBytes: Promise<number> | undefined;

  constructor(durable: StateDocumentStore, ephemeral: EphemeralStore, options: RegisteredClientsOptions = {}) {
    this.#durable = durable;
    this.#ephemeral = ephemeral;
    this.#maxClients = options.maxClients ?? defaultMaxClients;
    this.#unusedTtlMs = options.unusedTtlMs ?? defaultUnusedTtlMs;
    this.#maxRecordBytes = options.maxRecordBytes ?? defaultMaxClientRecordBytes;
    this.#liveClients = options.liveClients ?? (async () => new Set());
    this.#now = options.now ?? Date.now;
  }

  async register(registration: ClientRegistration): Promise<RegisteredClient> {
    const now = this.#now();
    // The place is taken before the write, so registrations in flight during its round trip count too.
    const place = this.#admit(now);
    const clientId = randomBytes(16).toString('hex');
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
    try {
      await this.#ephemeral.set(pendingKey(clientId), toJson(stored), this.#unusedTtlMs);
    } catch (error) {
      this.#release(place);
      throw error;
    }
    return { ...describe(stored), ...(secret === undefined ? {} : { secret }) };
  }

  async find(clientId: string): Promise<OAuthClient | null> {
    if (!clientIdShape.test(clientId)) {
      const legacy = (await this.#legacyClients()).get(clientId);
      return legacy === undefined ? null : toClient(legacy);
    }
    const stored = (await this.#pending(clientId)) ?? (await this.#durableRecord(clientId));
    return stored === null ? null : toClient(stored);
  }

  /**
   * Records that a client obtained tokens: a registration awaiting its first
   * use becomes a durable record of its own (after making room for it); a
   * durable one has its `lastUsedAt` refreshed at most daily. Call it before
   * issuing anything the client needs to be found for: the registration stays
   * pending (and the client found) until the durable record is written.
   */
  async touch(clientId: string): Promise<void> {
    if (!clientIdShape.test(clientId)) return;
    const now = Math.floor(this.#now() / 1000);
    const cached = this.#cache.peek(clientId);
    if (cached?.lastUsedAt !== undefined && now - cached.lastUsedAt < touchEverySeconds) return;
    const pending = await this.#pending(clientId);
    if (pending !== null) await this.#makeRoom(clientId, recordBytes(clientId, { ...pending, lastUsedAt: now }));
    const stored = await this.#document(clientId).update((current) => {
      const base = current ?? pending;
      if (base === null) return { outcome: null };
      if (base.lastUsedAt !== undefined && now - base.lastUsedAt < touchEverySeconds) return { outcome: base };
      const next = { ...base, lastUsedAt: now };
      return { next, outcome: next };
    });
    if (stored !== null) this.#remember(stored);
    if (pending !== null) await this.#ephemeral.delete(pendingKey(clientId));
  }

  /**
   * The total bound on registrations awaiting first use (per replica), with a
   * Retry-After when full. Takes a place in the window at once and returns it,
   * for `#release` should the registration not be stored.
   */
  #admit(now: number): { at: number } {
    while (this.#recent.length > 0 && now - this.#recent[0]!.at >= this.#unusedTtlMs) this.#recent.shift();
    if (this.#recent.length < this.#maxClients) {
      const place = { at: now };
      this.#recent.push(place);
      return place;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((this.#recent[0]!.at + this.#unusedTtlMs - now) / 1000));
    throw new OAuthError('temporarily_unavailable', 'client registration is full; try again later', {
      retryAfterSeconds,
    });
  }

  #release(place: { at: number }): void {
    const index = this.#recent.indexOf(place);
    if (index >= 0) this.#recent.splice(index, 1);
  }

  /** Prunes durable records until one of `incomingBytes` fits the bound (client-record-budget.ts). */
  async #makeRoom(clientId: string, incomingBytes: number): Promise<void> {
    const own = registeredClientDocument(clientId);
    const others = [...(await this.#durable.readAll(registeredClientPrefix))].filter(([document]) => document !== own);
    const otherBytes = await this.#legacyDocumentBytes();
    const recordBytes = others.map(([document, bytes]) => recordSize(document, bytes));
    // Whether anything must go is a sum; reading every record and the refresh tokens is for choosing which.
    if (fitsRecordBudget({ recordBytes, incomingBytes, otherBytes, maxBytes: this.#maxRecordBytes })) return;
    const records = others.map(([document, bytes]) => summarize(document, bytes));
    const prune = recordsToPrune({
      records,
      incomingBytes,
      otherBytes,
      maxBytes: this.#maxRecordBytes,
      keep: clientId,
      liveClients: await this.#liveClients(),
    });
    await this.#durable.remove(prune);
    for (const record of records) if (prune.includes(record.document)) this.#cache.delete(record.clientId ?? '');
  }

  async #pending(clientId: string): Promise<StoredClient | null> {
    return readRecord(storedClient, 'client', await this.#ephemeral.get(pendingKey(clientId)));
  }

  async #durableRecord(clientId: string): Promise<StoredClient | null> {
    const cached = this.#cache.get(clientId);
    if (cached !== undefined) return cached;
    const stored = await this.#document(clientId).read();
    if (stored !== null) this.#remember(stored);
    return stored;
  }

  #document(clientId: string) {
    return jsonDocument<StoredClient | null>(
      this.#durable,
      registeredClientDocument(clientId),
      () => null,
      (value): value is StoredClient => storedClient.safeParse(value).success,
    );
  }

  #remember(stored: StoredClient): void {
    this.#cache.set(stored.clientId, stored);
  }

  /** The pre-per-record document, read once; a failed read is tried again next time. */
  #legacyClients(): Promise<ReadonlyMap<string, StoredClient>> {
    this.#legacy ??= this.#readLegacy().catch((error: unknown) => {
      this.#legacy = undefined;
      throw error;
    });
    return this.#legacy;
  }

  /** The pre-per-record document shares the records' Secret on Kubernetes, so its bytes count against their bound. */
  #legacyDocumentBytes(): Promise<number> {
    this.#legacyBytes ??= this.#durable.read(signInDocuments.registeredClients).then(
      (bytes) => (bytes === null ? 0 : signInDocuments.registeredClients.length + bytes.length),
      (error: unknown) => {
        this.#legacyBytes = undefined;
        throw error;
      },
    );
    return this.#legacyBytes;
  }

  async #readLegacy(): Promise<ReadonlyMap<string, StoredClient>> {
    const document = await jsonDocument(
      this.#durable,
      signInDocuments.registeredClients,
      () => ({ clients: {} }),
      (value): value is z.infer<typeof legacyDocument> => legacyDocument.safeParse(value).success,
    ).read();
    const clients = new Map<string, StoredClient>();
    for (const [id, value] of Object.entries(document.clients)) {
      const parsed = storedClient.safeParse(value);
      if (parsed.success && parsed.data.clientId === id && parsed.data.lastUsedAt !== undefined)
        clients.set(id, parsed.data);
    }
    return clients;
  }
}

/** A record's size as stored (`jsonDocument` writes `JSON.stringify`), name included. */
function recordBytes(clientId: string, stored: StoredClient): number {
  return registeredClientDocument(clientId).length + Buffer.byteLength(JSON.stringify(stored));
}

/** A record's share of the bound: its name plus its contents, as a Secret counts them. */
function recordSize(document: string, bytes: Buffer): number {
  return document.length + bytes.length;
}

function summarize(document: string, bytes: Buffer): RecordSummary {
  let parsed: ReturnType<typeof storedClient.safeParse> | undefined;
  try {
    parsed = storedClient.safeParse(JSON.parse(bytes.toString('utf8')));
  } catch {
    parsed = undefined;
  }
  const size = recordSize(document, bytes);
  if (parsed?.success !== true) return { document, clientId: null, bytes: size, usedAt: null };
  const { clientId, lastUsedAt, issuedAt } = parsed.data;
  return { document, clientId, bytes: size, usedAt: lastUsedAt ?? issuedAt };
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
