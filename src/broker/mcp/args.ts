import { z } from 'zod';

/**
 * Argument schemas with the reference broker's messages (go-broker-inventory
 * §4.2: `url is required`, `expected_version is required`, ...). The same
 * schema both advertises the arguments to clients and validates them.
 */
export function requiredString(name: string, description: string) {
  return z.string({ error: `${name} is required` }).describe(description);
}

export function optionalString(name: string, description: string) {
  return z
    .string({ error: `${name} must be a string` })
    .optional()
    .describe(description);
}

export function optionalBoolean(name: string, description: string) {
  return z
    .boolean({ error: `${name} must be a boolean` })
    .optional()
    .describe(description);
}

export function requiredInteger(name: string, description: string) {
  return z
    .number({ error: `${name} is required` })
    .int({ error: `${name} must be an integer` })
    .describe(description);
}

export function optionalInteger(name: string, description: string) {
  return z
    .number({ error: `${name} must be a number` })
    .int({ error: `${name} must be an integer` })
    .optional()
    .describe(description);
}

/** A number the handler checks itself (range, rounding), with the reference's message for other types. */
export function optionalNumber(name: string, description: string) {
  return z
    .number({ error: `${name} must be a number` })
    .optional()
    .describe(description);
}

/** Publisher metadata as a JSON object; values of any JSON type are stringified the Go way. */
export function optionalObject(name: string, description: string) {
  return z
    .record(z.string(), z.unknown(), { error: `${name} must be an object` })
    .optional()
    .describe(description);
}

export const urlDescription = 'mark:// URL of a document or directory, e.g. mark://team-a/index.md';

/** The switch every search and lookup tool shares: broker-generated documents stay out unless asked for. */
export const includeGeneratedArgument = optionalBoolean(
  'include_generated',
  'also return documents the broker generates (the /graph.md link export, /index/<host:port>.md hash indexes, /.demarkus/ crawl state); default false',
);
