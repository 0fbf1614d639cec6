/**
 * The short-lived state this broker process uses, chosen by `state.ephemeral`:
 * its own memory (one replica, `npm start`) or Redis shared by every replica.
 * The Redis connection is returned too: shared rate limits, MCP sessions and
 * the graph re-seed signal use the same one.
 */
import type { Redis } from 'ioredis';
import type { BrokerConfig } from '../config/index.ts';
import type { EphemeralStore } from './ephemeral-store.ts';
import { MemoryEphemeralStore } from './memory-ephemeral-store.ts';
import { connectRedis } from './redis/redis-client.ts';
import { RedisEphemeralStore } from './redis/redis-ephemeral-store.ts';

export type SharedState = {
  ephemeral: EphemeralStore;
  /** The shared Redis connection, or null in memory mode. */
  redis: Redis | null;
  keyPrefix: string;
  close(): Promise<void>;
};

export async function openSharedState(
  config: Pick<BrokerConfig, 'state' | 'redis'>,
  onRedisError: (error: Error) => void,
): Promise<SharedState> {
  if (config.state.ephemeral !== 'redis' || config.redis === undefined)
    return {
      ephemeral: new MemoryEphemeralStore({ maxEntriesPerKind: config.state.maxPendingSignIns }),
      redis: null,
      keyPrefix: '',
      close: async () => {},
    };
  const redis = await connectRedis(config.redis, onRedisError);
  return {
    ephemeral: new RedisEphemeralStore({
      client: redis,
      keyPrefix: config.redis.keyPrefix,
      maxEntriesPerKind: config.state.maxPendingSignIns,
    }),
    redis,
    keyPrefix: config.redis.keyPrefix,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
