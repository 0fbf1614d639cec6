/**
 * One ioredis connection from the `redis.*` config: standalone (`redis://`,
 * `rediss://`) or through Sentinel, with the password read from its file.
 * Commands never queue while the connection is down (`enableOfflineQueue:
 * false`), so a caller learns at once that Redis is unreachable and can answer
 * 503 instead of hanging; the client keeps reconnecting in the background with
 * a capped backoff, so the broker recovers without a restart.
 */
import { readFile } from 'node:fs/promises';
import { Redis, type RedisOptions } from 'ioredis';
import type { RedisConfig } from '../../config/redis-schema.ts';
import { parseHostPort } from '../../config/index.ts';

/** Reconnect delay: 100 ms more per attempt, never more than 2 s apart. */
const reconnectDelay = (attempt: number) => Math.min(attempt * 100, 2000);

export async function redisOptions(config: RedisConfig): Promise<RedisOptions> {
  const url = config.url === undefined ? undefined : new URL(config.url);
  const password = config.password ?? (await secretFile(config.passwordFile));
  const tls =
    url?.protocol === 'rediss:'
      ? {
          ...(config.caFile === undefined ? {} : { ca: await readFile(config.caFile) }),
          ...(config.sentinel === undefined ? { servername: url.hostname } : {}),
        }
      : undefined;
  const common: RedisOptions = {
    ...(config.username === undefined ? {} : { username: config.username }),
    ...(password === undefined ? {} : { password }),
    ...(tls === undefined ? {} : { tls }),
    db: url === undefined || url.pathname.length <= 1 ? 0 : Number(url.pathname.slice(1)),
    connectTimeout: config.connectTimeout,
    commandTimeout: config.commandTimeout,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: reconnectDelay,
    lazyConnect: true,
  };
  if (config.sentinel === undefined)
    return {
      ...common,
      host: url!.hostname.replace(/^\[|\]$/g, ''),
      port: url!.port === '' ? 6379 : Number(url!.port),
    };
  const sentinelPassword = await secretFile(config.sentinel.passwordFile);
  return {
    ...common,
    name: config.sentinel.masterName,
    role: 'master',
    sentinels: config.sentinel.nodes.map((node) => {
      const { host, port } = parseHostPort(node);
      return { host: host!, port };
    }),
    ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
    sentinelRetryStrategy: reconnectDelay,
  };
}

/**
 * Connects, waiting at most `redis.connectTimeout` for the first `ready`. A
 * Redis that is down at start-up does not stop the broker (bearer-checked tool
 * calls need no Redis); `onError` hears about it, and every later failure.
 */
export async function connectRedis(config: RedisConfig, onError: (error: Error) => void): Promise<Redis> {
  const client = new Redis(await redisOptions(config));
  let lastReported = '';
  client.on('error', (error: Error) => {
    // ioredis repeats the same error on every reconnect attempt: report changes only.
    if (error.message === lastReported) return;
    lastReported = error.message;
    onError(error);
  });
  client.on('ready', () => {
    lastReported = '';
  });
  await Promise.race([
    client.connect().catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, config.connectTimeout).unref()),
  ]);
  return client;
}

async function secretFile(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  const text = (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
  return text === '' ? undefined : text;
}
