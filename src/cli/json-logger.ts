import { pino, type LoggerOptions } from 'pino';
import type { WorldLogger } from '../world/handler/context.ts';
import { UsageError } from './usage-error.ts';

/**
 * The one log format of every process: pino's JSON lines on stderr with the
 * level as a word (`"level":"warn"`), an ISO time and the component, which is
 * what log collectors index and what people grep. The broker's HTTP listeners
 * take these options (Fastify logs through pino); worlds and the dev stack use
 * `jsonLogger`.
 */
export function logOptions(component: string, level = logLevel()): LoggerOptions {
  return {
    level,
    base: { component },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

/** pino's level names (pino `levels.values`, plus `silent`), in the order the message lists them. */
const levelNames = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/**
 * `LOG_LEVEL`, lower-cased: unset or empty means `fallback`, as for every
 * variable the CLI reads; any other name is a usage error here rather than
 * pino's "default level:warning must be included in custom levels".
 */
export function logLevel(fallback = 'info', env: NodeJS.ProcessEnv = process.env): string {
  const text = env.LOG_LEVEL;
  if (text === undefined || text === '') return fallback;
  const level = text.toLowerCase();
  if (!(levelNames as readonly string[]).includes(level))
    throw new UsageError(`LOG_LEVEL must be one of ${levelNames.join(', ')}, got ${JSON.stringify(text)}`);
  return level;
}

/** A pino logger with `logOptions`, shaped as the world server's logger. */
export function jsonLogger(component: string, level?: string): WorldLogger {
  const logger = pino(logOptions(component, level), pino.destination({ fd: 2, sync: true }));
  return {
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
  };
}
