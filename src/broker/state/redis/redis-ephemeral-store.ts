/**
 * The short-lived store on Redis, shared by every broker replica. Each entry
 * is one string key under the configured prefix, written with `SET … PX` so
 * it always expires; `take` is `GETDEL` (Redis 6.2+), so a single-use code is
 * handed out once however many replicas race; `update` is optimistic: read,
 * apply the change in this process, then a compare-and-set script writes the
 * result only if nobody changed the entry meanwhile (`KEEPTTL` keeps its
 * expiry), retrying otherwise. Values read back are parsed and checked as
 * JSON before any caller sees them. `admit` counts each kind in a sorted set
 * (`<prefix>eph:admitted:<kind>`, member the key, score its expiry) that one
 * script trims, checks and extends with the write, as the MCP session
 * directory bounds its sessions (src/broker/http/shared-sessions.ts).
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { defaultMaxPendingSignIns } from '../../config/redis-schema.ts';
import type { Admission, EphemeralStore, JsonValue } from '../ephemeral-store.ts';
import { StateUnavailableError } from '../state-unavailable.ts';
import { redisScript } from './redis-script.ts';

/** Returns 1 when the entry still held ARGV[1] and now holds ARGV[2], 0 when it had changed or gone. */
const compareAndSet = redisScript(`
local current = redis.call('GET', KEYS[1])
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
`);

/**
 * KEYS: the entry, the kind's sorted set. ARGV: value, TTL ms, bound. Drops
 * the expired members, then writes the entry and adds it (1), or refuses with
 * the milliseconds until the oldest member expires ({0, ms}). The set lives as
 * long as its longest-lived member. Redis's own clock, so replicas agree.
 */
const admitScript = redisScript(`
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREM', KEYS[2], KEYS[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) - now}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return {1}
`);

const jsonValue: z.ZodType<JsonValue> = z.json();

/** Concurrent updates of one key that lose the race this many times in a row give up. */
const maxUpdateAttempts = 32;

export type RedisEphemeralStoreOptions = {
  client: Redis;
  keyPrefix: string;
  /** `admit`'s bound on each kind, for the whole cluster (`state.maxPendingSignIns`). */
  maxEntriesPerKind?: number;
};

export class RedisEphemeralStore implements EphemeralStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #maxEntriesPerKind: number;

  constructor(options: RedisEphemeralStoreOptions) {
    this.#client = options.client;
    this.#prefix = `${options.keyPrefix}eph:`;
    this.#maxEntriesPerKind = options.maxEntriesPerKind ?? defaultMaxPendingSignIns;
  }

  async set(key: string, value: JsonValue, ttlMs: number): Promise<void> {
    if (!(ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${ttlMs}`);
    await this.#call(() => this.#client.set(this.#key(key), JSON.stringify(value), 'PX', Math.ceil(ttlMs)));
  }

  async get(key: string): Promise<JsonValue | null> {
    return this.#decode(key, await this.#call(() => this.#client.get(this.#key(key))));
  }

  async take(key: string): Promise<JsonValue | null> {
    return this.#decode(key, await this.#call(() => this.#client.getdel(this.#key(key))));
  }

  async update(key: string, change: (current: JsonValue) => JsonValue | undefined): Promise<JsonValue | null> {
    const redisKey = this.#key(key);
    for (let attempt = 0; attempt < maxUpdateAttempts; attempt++) {
      const stored = await this.#call(() => this.#client.get(redisKey));
      const current = this.#decode(key, stored);
      if (stored === null || current === null) return null;
      const next = change(current);
      if (next === undefined) return current;
      const written = JSON.stringify(next);
      const swapped = await this.#call(() => compareAndSet.run(this.#client, [redisKey], [stored, written]));
      if (swapped === 1) return JSON.parse(written) as JsonValue;
    }
    throw new StateUnavailableError(`short-lived entry ${key} changed ${maxUpdateAttempts} times during one update`);
  }

  async delete(key: string): Promise<void> {
    await this.#call(() => this.#client.del(this.#key(key)));
  }

  async admit(kind: string, key: string, value: JsonValue, ttlMs: number): Promise<Admission> {
    if (!(ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${ttlMs}`);
    const reply = await this.#call(() =>
      admitScript.run(
        this.#client,
        [this.#key(key), `${this.#prefix}admitted:${kind}`],
        [JSON.stringify(value), Math.ceil(ttlMs), this.#maxEntriesPerKind],
      ),
    );
    const [admitted, retryAfterMs] = reply as [number, number?];
    return admitted === 1 ? { admitted: true } : { admitted: false, retryAfterMs: retryAfterMs ?? ttlMs };
  }

  #key(key: string): string {
    return this.#prefix + key;
  }

  #decode(key: string, stored: string | null): JsonValue | null {
    if (stored === null) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(stored);
    } catch (cause) {
      throw new StateUnavailableError(`short-lived entry ${key} in Redis is not JSON`, { cause });
    }
    const checked = jsonValue.safeParse(parsed);
    if (!checked.success) throw new StateUnavailableError(`short-lived entry ${key} in Redis is not a JSON value`);
    return checked.data;
  }

  async #call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (cause) {
      throw new StateUnavailableError(`Redis did not answer: ${(cause as Error).message ?? String(cause)}`, { cause });
    }
  }
}
