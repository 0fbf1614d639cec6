/**
 * A Lua script run by its SHA1 (EVALSHA), loaded on first use and again after
 * a server restart or SCRIPT FLUSH (NOSCRIPT): one round trip in the steady
 * state, and the script body is sent only when the server lacks it.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export type RedisScript = {
  run(client: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown>;
};

export function redisScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    async run(client, keys, args) {
      try {
        return await client.evalsha(sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return client.eval(source, keys.length, ...keys, ...args);
      }
    },
  };
}
