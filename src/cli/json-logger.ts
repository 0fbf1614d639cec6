import { pino, type LoggerOptions } from 'pino';
import type { WorldLogger } from '../world/handler/context.ts';

/**
 * The one log format of every process: pino's JSON lines on stderr with the
 * level as a word (`"level":"warn"`), an ISO time and the component, which is
 * what log collectors index and what people grep. The broker's HTTP listeners
 * take these options (Fastify logs through pino); worlds and the dev stack use
 * `jsonLogger`.
 */
export function logOptions(component: string, level = process.env.LOG_LEVEL ?? 'info'): LoggerOptions {
  return {
    level,
    base: { component },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
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
