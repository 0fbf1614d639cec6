/**
 * The cluster-wide directory of stateful MCP sessions, in Redis, so that any
 * broker replica can serve a session another one opened, and the session
 * limits hold for the cluster rather than per pod. One hash per session
 * (`<prefix>mcp:s:<id>`): the owner subject, the `initialize` parameters
 * (protocol version, client capabilities and info: what a replica replays to
 * rebuild the session), the tools' session memory and its revision, and the
 * session's resource subscriptions, one field each (`sub:<uri>`, see
 * src/broker/http/shared-memory.ts), holding the token of the reservation
 * that last took the place (`reserveSubscription`). Two
 * sorted sets by last use bound the sessions: all of them, and each
 * subject's. Every key expires after the idle TTL, renewed on each use.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { sha256Hex } from '../../protocol/token.ts';
import { redisScript, StateUnavailableError } from '../state/index.ts';

export type SessionRecord = {
  subject: string;
  /** The client's `initialize` params as it sent them. */
  initialize: Record<string, unknown>;
};

export type FoundSession = SessionRecord & { revision: number };

export type SessionLimits = { maxSessions: number; maxSessionsPerSubject: number; idleTtlMs: number };

/**
 * KEYS: all-sessions set, the subject's set, the new session's hash. ARGV: id,
 * record JSON, idle TTL ms, max total, max per subject, subject-set prefix,
 * session-hash prefix, the subject's hash (names its set; `touch` reads it back). Drops idle entries, then closes the subject's own
 * oldest sessions past its cap; refuses (0) when the cluster is full of other
 * subjects' sessions, as `SessionStore.canOpen` does in one process. Returns
 * `{1, evicted ids...}` when opened.
 */
const openScript = redisScript(`
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttl = tonumber(ARGV[3])
local cutoff = now - ttl
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff)) do
  redis.call('DEL', ARGV[7] .. id)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', cutoff)
local evicted = {}
local own = redis.call('ZCARD', KEYS[2])
while own >= tonumber(ARGV[5]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  redis.call('ZREM', KEYS[2], oldest)
  redis.call('ZREM', KEYS[1], oldest)
  redis.call('DEL', ARGV[7] .. oldest)
  table.insert(evicted, oldest)
  own = own - 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  if own == 0 then return {0} end
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  redis.call('ZREM', KEYS[2], oldest)
  redis.call('ZREM', KEYS[1], oldest)
  redis.call('DEL', ARGV[7] .. oldest)
  table.insert(evicted, oldest)
end
redis.call('HSET', KEYS[3], 'record', ARGV[2], 'revision', 0, 'owner', ARGV[8])
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
table.insert(evicted, 1, 1)
return evicted
`);

/**
 * KEYS: the session hash, all-sessions set. ARGV: id, idle TTL ms, subject-set
 * prefix. Renews the session's expiry and its place in both sets; returns
 * `{record, revision}` or an empty reply when it is gone.
 */
const touchScript = redisScript(`
local found = redis.call('HMGET', KEYS[1], 'record', 'revision')
if not found[1] then return {} end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], 'XX', now, ARGV[1])
local subjectSet = ARGV[3] .. redis.call('HGET', KEYS[1], 'owner')
redis.call('ZADD', subjectSet, 'XX', now, ARGV[1])
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', subjectSet, ttl)
return {found[1], found[2] or '0'}
`);

/**
 * Lua: gives back the places named by ARGV from `from` on, in pairs of URI and
 * token: each field is removed only while it holds that token. A place taken
 * again since, through any replica, holds a new token and stays
 * (docs/decisions.md, "A place Redis did not take back is given back later,
 * only while it holds the token it had").
 */
const giveBackFunction = `
local function giveBack(key, from)
  for i = from, #ARGV, 2 do
    local field = 'sub:' .. ARGV[i]
    if redis.call('HGET', key, field) == ARGV[i + 1] then redis.call('HDEL', key, field) end
  end
end
`;

/**
 * KEYS: the session hash. ARGV: state JSON, the count of URIs unsubscribed,
 * those URIs, then the places to give back (URI, token pairs). Stores the
 * memory, removes those subscriptions (one field each: concurrent saves from
 * several replicas add up) and gives back those places, and returns the new
 * revision, or -1 when the session is gone. It adds none:
 * `reserveSubscriptionScript` did when the subscribe came in, and adding
 * again could bring back a field another replica removed since, past the
 * bound (docs/decisions.md, "A shared session's save only removes subscriptions").
 */
const saveStateScript = redisScript(`${giveBackFunction}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'state', ARGV[1])
local unsubscribed = tonumber(ARGV[2])
for i = 3, 2 + unsubscribed do redis.call('HDEL', KEYS[1], 'sub:' .. ARGV[i]) end
giveBack(KEYS[1], 3 + unsubscribed)
return redis.call('HINCRBY', KEYS[1], 'revision', 1)
`);

/**
 * KEYS: the session hash. ARGV: a URI, the most subscriptions the session may
 * hold, the reservation's token, then places to give back first (URI, token
 * pairs). Adds the URI's field (`sub:<uri>`) unless the session already holds
 * that many others: the bound counted and taken in one step, so replicas
 * subscribing at the same moment cannot each find room for one more. The
 * field holds the token, also when the URI was held already: the place is
 * taken again, so a give-back of it from before (a copy's unsubscribe that
 * Redis did not answer) leaves it. Returns 2 when added, 1 when already held,
 * 0 when full, -1 when the session is gone. The revision is left alone: the
 * copy's save after the request bumps it.
 */
const reserveSubscriptionScript = redisScript(`${giveBackFunction}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
giveBack(KEYS[1], 4)
local field = 'sub:' .. ARGV[1]
if redis.call('HEXISTS', KEYS[1], field) == 1 then
  redis.call('HSET', KEYS[1], field, ARGV[3])
  return 1
end
local held = 0
for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(name, 1, 4) == 'sub:' then held = held + 1 end
end
if held >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], field, ARGV[3])
return 2
`);

/** KEYS: the session hash. ARGV: places to give back (URI, token pairs). */
const giveBackScript = redisScript(`${giveBackFunction}
giveBack(KEYS[1], 1)
return 1
`);

/** Places to give back: URI and the token its reservation gave it. */
export type GiveBacks = ReadonlyArray<readonly [uri: string, token: string]>;

/** What `reserveSubscription` did: `added` the URI, found it `held` already, or neither, the session being `full` or `gone`. */
export type SubscriptionReservation = 'added' | 'held' | 'full' | 'gone';

/**
 * A session's memory as saved: the tools' memory (null when none was), its
 * resource subscriptions as the URIs of `places`, each with its place token,
 * and the revision.
 */
export type StoredMemory = {
  state: string | null;
  places: ReadonlyMap<string, string>;
  revision: number;
};

const storedRecord = z.object({ subject: z.string().min(1), initialize: z.record(z.string(), z.unknown()) });

export type SharedSessionsOptions = SessionLimits & { client: Redis; keyPrefix: string };

export class SharedSessions {
  readonly #client: Redis;
  readonly #limits: SessionLimits;
  readonly #all: string;
  readonly #subjectPrefix: string;
  readonly #sessionPrefix: string;

  constructor(options: SharedSessionsOptions) {
    this.#client = options.client;
    this.#limits = options;
    this.#all = `${options.keyPrefix}mcp:all`;
    this.#subjectPrefix = `${options.keyPrefix}mcp:subject:`;
    this.#sessionPrefix = `${options.keyPrefix}mcp:s:`;
  }

  get idleTtlMs(): number {
    return this.#limits.idleTtlMs;
  }

  /**
   * Records a new session within the cluster's limits: `opened` (with the
   * ids of the subject's own sessions closed to make room) or `full`.
   */
  async open(id: string, record: SessionRecord): Promise<{ opened: true; evicted: string[] } | { opened: false }> {
    const owner = sha256Hex(record.subject);
    const reply = await this.#call(() =>
      openScript.run(
        this.#client,
        [this.#all, this.#subjectPrefix + owner, this.#sessionPrefix + id],
        [
          id,
          JSON.stringify(record),
          this.#limits.idleTtlMs,
          this.#limits.maxSessions,
          this.#limits.maxSessionsPerSubject,
          this.#subjectPrefix,
          this.#sessionPrefix,
          owner,
        ],
      ),
    );
    if (!Array.isArray(reply) || reply[0] !== 1) return { opened: false };
    return { opened: true, evicted: reply.slice(1).map(String) };
  }

  /** The session, renewed for another idle TTL, or null when it ended or expired. */
  async touch(id: string): Promise<FoundSession | null> {
    const reply = await this.#call(() =>
      touchScript.run(
        this.#client,
        [this.#sessionPrefix + id, this.#all],
        [id, this.#limits.idleTtlMs, this.#subjectPrefix],
      ),
    );
    if (!Array.isArray(reply) || reply.length < 2) return null;
    const record = storedRecord.safeParse(parseJson(String(reply[0])));
    if (!record.success) throw new StateUnavailableError(`MCP session ${id} in Redis does not have the expected shape`);
    return { ...record.data, revision: Number(reply[1]) || 0 };
  }

  /** The session's memory as saved, read at once with its revision; null when the session is gone. */
  async loadMemory(id: string): Promise<StoredMemory | null> {
    const fields = await this.#call(() => this.#client.hgetall(this.#sessionPrefix + id));
    if (fields.record === undefined) return null;
    const places = new Map(
      Object.entries(fields)
        .filter(([field]) => field.startsWith('sub:'))
        .map(([field, token]) => [field.slice('sub:'.length), token]),
    );
    return {
      state: fields.state ?? null,
      places,
      revision: Number(fields.revision) || 0,
    };
  }

  /**
   * Stores the session's tool memory, drops the `unsubscribed` URIs and gives
   * back the places in `givenBack` that still hold their token; returns the
   * new revision, or null when the session is gone. Subscriptions are added
   * only by `reserveSubscription`.
   */
  async saveState(
    id: string,
    state: string,
    unsubscribed: readonly string[],
    givenBack: GiveBacks,
  ): Promise<number | null> {
    const args = [state, unsubscribed.length, ...unsubscribed, ...givenBack.flat()];
    const revision = Number(
      await this.#call(() => saveStateScript.run(this.#client, [this.#sessionPrefix + id], args)),
    );
    return revision < 0 ? null : revision;
  }

  /**
   * Counts `uri` among session `id`'s subscriptions unless it already holds
   * `limit` others: the cluster-wide bound of resource subscriptions, checked
   * and taken atomically in Redis (docs/decisions.md, "A shared session's
   * subscription bound is taken in Redis"). The place holds `token`; the
   * places in `givenBack` are given back first, each while it still holds its token.
   */
  async reserveSubscription(
    id: string,
    uri: string,
    limit: number,
    token: string,
    givenBack: GiveBacks,
  ): Promise<SubscriptionReservation> {
    const args = [uri, limit, token, ...givenBack.flat()];
    const reply = Number(
      await this.#call(() => reserveSubscriptionScript.run(this.#client, [this.#sessionPrefix + id], args)),
    );
    if (reply === 2) return 'added';
    if (reply === 1) return 'held';
    return reply === 0 ? 'full' : 'gone';
  }

  /** Gives back the place `reserveSubscription` took with `token`, unless it was taken again since. */
  async releaseSubscription(id: string, uri: string, token: string): Promise<void> {
    await this.#call(() => giveBackScript.run(this.#client, [this.#sessionPrefix + id], [uri, token]));
  }

  /**
   * Which of these sessions still exist, i.e. were used through some replica
   * within the idle TTL (each use renews the record's expiry): one round trip
   * for all of them.
   */
  async inUse(ids: readonly string[]): Promise<Set<string>> {
    const replies = await this.#call(async () => {
      const pipeline = this.#client.pipeline();
      for (const id of ids) pipeline.exists(this.#sessionPrefix + id);
      return (await pipeline.exec()) ?? [];
    });
    const found = new Set<string>();
    for (const [index, [error, count]] of replies.entries()) {
      if (error) throw new StateUnavailableError(`Redis did not answer: ${error.message}`, { cause: error });
      if (count === 1) found.add(ids[index]!);
    }
    return found;
  }

  /** Ends a session cluster-wide (the client sent DELETE, or its initialize failed). */
  async delete(id: string, subject: string): Promise<void> {
    await this.#call(() =>
      this.#client
        .multi()
        .del(this.#sessionPrefix + id)
        .zrem(this.#all, id)
        .zrem(this.#subjectPrefix + sha256Hex(subject), id)
        .exec(),
    );
  }

  async #call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (cause) {
      throw new StateUnavailableError(`Redis did not answer: ${(cause as Error).message ?? String(cause)}`, { cause });
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
