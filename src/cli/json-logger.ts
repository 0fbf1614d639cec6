import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import type { WorldLogger } from '../world/handler/context.ts';
import { UsageError } from './usage-error.ts';

/**
 * The one log format and stream of every process: pino's JSON lines on stderr
 * with the level as a word (`"level":"warn"`), an ISO time and the component,
 * which is what log collectors index and what people grep. stderr because
 * stdout is the commands' output (`search --json`, `dev`'s addresses), which a
 * log line must never interleave with (docs/decisions.md). The broker's HTTP
 * listeners take these options as they are (Fastify logs through pino and
 * writes to `stream`); worlds and the dev stack use `jsonLogger`.
 */
export function logOptions(component: string, level = logLevel()): LoggerOptions & { stream: DestinationStream } {
  return {
    level,
    base: { component },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Synchronous, so the last lines before an exit are not lost.
    stream: pino.destination({ fd: 2, sync: true }),
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
  const { stream, ...options } = logOptions(component, level);
  const logger = pino(options, stream);
  return {
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
  };
}
