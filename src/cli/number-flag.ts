/**
 * The one parser of the CLI's numeric flags and variables. `Number()` alone
 * reads "abc" as NaN (which passes no range check written as `n < min`), ""
 * and " " as 0, "0x10" as 16 and "1e3" as 1000; here only plain decimal
 * digits count, within the range given, or it is a usage error (exit 2) that
 * names the flag, the range and what was given.
 */
import { UsageError } from './usage-error.ts';

export type NumberRange = {
  min: number;
  /** No bound above when absent. */
  max?: number;
  /** A fraction is allowed (e.g. a similarity, a rate); else whole numbers only. */
  fraction?: boolean;
  /** What the number counts, for the message: "milliseconds", "documents". */
  unit?: string;
};

/** Timers take at most 2^31-1 ms; a longer timeout would fire at once (Node's setTimeout). */
export const maxTimeoutMs = 2 ** 31 - 1;

/** `text` as a number in `range`, or `fallback` when it is absent; `name` is the flag or variable, for the message. */
export function numberFlag(name: string, text: string | undefined, range: NumberRange, fallback: number): number;
export function numberFlag(name: string, text: string | undefined, range: NumberRange): number | undefined;
export function numberFlag(
  name: string,
  text: string | undefined,
  range: NumberRange,
  fallback?: number,
): number | undefined {
  if (text === undefined) return fallback;
  const pattern = range.fraction ? /^\d+(?:\.\d+)?$/ : /^\d+$/;
  const n = Number(text);
  if (!pattern.test(text) || n < range.min || (range.max !== undefined && n > range.max)) {
    const kind = range.fraction ? 'a number' : 'a whole number';
    const unit = range.unit === undefined ? '' : ` of ${range.unit}`;
    const bounds = range.max === undefined ? `of at least ${range.min}` : `from ${range.min} to ${range.max}`;
    throw new UsageError(`${name} must be ${kind}${unit} ${bounds}, got ${JSON.stringify(text)}`);
  }
  return n;
}

/** The flag's value when given, else the environment variable's (empty counts as unset), with the name to blame in a message. */
export function flagOrEnv(
  flag: string,
  value: string | undefined,
  variable: string,
  env: NodeJS.ProcessEnv = process.env,
): [name: string, text: string | undefined] {
  return value !== undefined ? [flag, value] : [variable, env[variable] || undefined];
}
