/**
 * From zod issues to the one-line ConfigError. Messages come from the field
 * types or from `genericMessage` below (used as the per-parse error map), and
 * never include the offending value: some keys hold secrets.
 */
import type { z } from 'zod';
import { ConfigError, type ConfigErrorCode } from './errors.ts';

export const requiredMessage = 'is required';
export const unknownKeyMessage = 'unknown key';

/** Per-parse error map: wording for issues a field type did not word itself. */
export function genericMessage(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? requiredMessage : `must be ${typeWord(issue.expected)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `must have at least ${issue.minimum} entries`
        : `must be at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'array'
        ? `must have at most ${issue.maximum} entries`
        : `must be at most ${issue.maximum}`;
    case 'unrecognized_keys':
      return unknownKeyMessage;
    default:
      return 'is invalid';
  }
}

function typeWord(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'number':
    case 'int':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list';
    case 'object':
      return 'a map';
    default:
      return `of type ${expected}`;
  }
}

/**
 * The issue an operator should see first: an unknown key often explains the
 * rest (a misspelt required key is also "missing"), so it goes first.
 */
export function configErrorFromIssues(
  issues: readonly z.core.$ZodIssue[],
  envSources: ReadonlyMap<string, string>,
): ConfigError {
  const first = issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0];
  if (first === undefined) return new ConfigError('ERR_CONFIG_INVALID', 'config: invalid');
  const path = first.code === 'unrecognized_keys' ? [...first.path, first.keys[0] ?? ''] : [...first.path];
  const keyPath = formatKeyPath(path);
  const source = envSources.get(path.join('.'));
  const where = source === undefined ? keyPath : `${keyPath} (from ${source})`;
  return new ConfigError(codeOf(first), `config: ${where}: ${first.message}`, { keyPath });
}

function codeOf(issue: z.core.$ZodIssue): ConfigErrorCode {
  if (issue.code === 'unrecognized_keys') return 'ERR_CONFIG_UNKNOWN_KEY';
  // "is required when storage.backend is …" and "at least one world is required" are missing keys too.
  if (issue.message.startsWith(requiredMessage) || issue.message.endsWith(requiredMessage))
    return 'ERR_CONFIG_REQUIRED';
  if (issue.code === 'custom' && issue.params?.conflict === true) return 'ERR_CONFIG_CONFLICT';
  return 'ERR_CONFIG_INVALID';
}

/** `['worlds', 1, 'name']` → `worlds[1].name`. */
export function formatKeyPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}
