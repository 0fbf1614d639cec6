/**
 * Go `time.ParseDuration` syntax (`250ms`, `5m`, `1h30m`, `2160h`), because the
 * Go broker's config and chart values use it (Go `time.ParseDuration`). Parsed exactly
 * (BigInt nanoseconds, as Go keeps int64 nanoseconds) and returned in whole
 * milliseconds: the broker has no use for finer timers, so a value with a
 * sub-millisecond remainder is refused rather than silently rounded.
 */
import { errorWithCode } from '../../errors/coded-error.ts';
const nanosPerUnit: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const maxNanos = 2n ** 63n - 1n;
const nanosPerMilli = 1_000_000n;
const example = 'use Go syntax such as "250ms", "5m" or "2160h"';

export class DurationError extends errorWithCode('ERR_INVALID_DURATION') {}

/** Milliseconds in `text`; negative values are returned as such (callers decide). */
export function parseGoDuration(text: string): number {
  const nanos = parseNanos(text);
  if (nanos % nanosPerMilli !== 0n)
    throw new DurationError(`invalid duration ${JSON.stringify(text)}: must be a whole number of milliseconds`);
  return Number(nanos / nanosPerMilli);
}

function parseNanos(text: string): bigint {
  const invalid = () => new DurationError(`invalid duration ${JSON.stringify(text)}: ${example}`);
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  // Go: "0" alone needs no unit.
  if (rest === '0') return 0n;
  if (rest === '') throw invalid();
  let total = 0n;
  const term = /^(\d*)(?:\.(\d*))?([^\d.]*)/u;
  while (rest !== '') {
    const match = term.exec(rest);
    const [whole = '', intPart = '', fraction = '', unit = ''] = match ?? [];
    if (intPart === '' && fraction === '') throw invalid();
    const scale = nanosPerUnit[unit];
    if (scale === undefined) throw invalid();
    total += BigInt(intPart || '0') * scale + fractionNanos(fraction, scale);
    if (total > maxNanos) throw invalid();
    rest = rest.slice(whole.length);
  }
  return negative ? -total : total;
}

/** `0.5` of a unit, truncated to whole nanoseconds as Go does. */
function fractionNanos(digits: string, scale: bigint): bigint {
  if (digits === '') return 0n;
  return (BigInt(digits) * scale) / 10n ** BigInt(digits.length);
}

/** Go's `Duration.String` for whole milliseconds: `15m0s`, `2160h0m0s`, `250ms`, `1.5s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = (rest / 1000).toString();
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
