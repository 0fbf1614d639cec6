import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import type { WorldLogger } from '../world/handler/context.ts';

/**
 * The one log format and stream of every process: pino's JSON lines on stderr
 * with the level as a word (`"level":"warn"`), an ISO time and the component,
 * which is what log collectors index and what people grep. stderr because
 * stdout is the commands' output (`search --json`, `dev`'s addresses), which a
 * log line must never interleave with (docs/decisions.md). The broker's HTTP
 * listeners take these options as they are (Fastify logs through pino and
 * writes to `stream`); worlds and the dev stack use `jsonLogger`.
 */
export function logOptions(
  component: string,
  level = process.env.LOG_LEVEL ?? 'info',
): LoggerOptions & { stream: DestinationStream } {
  return {
    level,
    base: { component },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Synchronous, so the last lines before an exit are not lost.
    stream: pino.destination({ fd: 2, sync: true }),
  };
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
