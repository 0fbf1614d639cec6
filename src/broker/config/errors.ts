/**
 * Why the broker refused its configuration. One line, naming the key path and
 * the problem (`config: worlds[1].name: duplicate world name "team-a"`); never
 * a configured value of a secret key, never a line of the file's text.
 */
import { CodedError } from '../../errors/coded-error.ts';
export type ConfigErrorCode =
  /** The file could not be read. */
  | 'ERR_CONFIG_READ'
  /** The file is not well-formed YAML, or not a YAML map. */
  | 'ERR_CONFIG_SYNTAX'
  /** A key the schema does not know (strict decoding, as the Go broker's `KnownFields(true)`). */
  | 'ERR_CONFIG_UNKNOWN_KEY'
  /** A required key is missing or empty. */
  | 'ERR_CONFIG_REQUIRED'
  /** A value has the wrong type or shape. */
  | 'ERR_CONFIG_INVALID'
  /** Values that are each fine but do not fit together (cross-field rules). */
  | 'ERR_CONFIG_CONFLICT';

export class ConfigError extends CodedError<ConfigErrorCode> {
  /** The offending key path (`server.mcp.addr`, `worlds[1].name`), when one key is to blame. */
  readonly keyPath: string | undefined;

  constructor(code: ConfigErrorCode, message: string, options?: { keyPath?: string; cause?: unknown }) {
    super(code, message, options);
    this.keyPath = options?.keyPath;
  }
}

/** `config: <path>: <problem>`, the single format of every key error. */
export function keyError(code: ConfigErrorCode, keyPath: string, problem: string): ConfigError {
  return new ConfigError(code, `config: ${keyPath}: ${problem}`, { keyPath });
}
