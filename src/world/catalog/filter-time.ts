/**
 * Filter dates as the Go catalog reads them (filter.go parseFilterTime):
 * `time.Parse(time.RFC3339, s)`, else `time.Parse("2006-01-02", s)` at UTC midnight.
 *
 * time.Parse tries its strict RFC 3339 fast path and then falls back to its
 * general layout parser, so what it accepts is the general parser's language:
 * upper-case `T` and `Z` only, a 1- or 2-digit hour, a `.` or `,` fraction of
 * any length (the first 9 digits count), and offsets up to ±24:60. Days are
 * checked against the month, leap years included; second 60 is refused.
 */
import { isCalendarDate } from '../../protocol/time.ts';

/** An instant at nanosecond precision: epoch milliseconds plus the nanoseconds below them. */
export interface FilterInstant {
  readonly ms: number;
  readonly subMsNanos: number;
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;
const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/;

export function parseFilterInstant(text: string): FilterInstant | null {
  return parseRfc3339(text) ?? parseDateOnly(text);
}

function parseRfc3339(text: string): FilterInstant | null {
  const m = rfc3339.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
  let offsetSeconds = 0;
  if (m[8] !== 'Z') {
    const offsetHours = Number(m[10]);
    const offsetMinutes = Number(m[11]);
    // time.Parse's general parser tests with > (not >=): "some people do write offsets of 24 hours".
    if (offsetHours > 24 || offsetMinutes > 60) return null;
    offsetSeconds = (offsetHours * 60 + offsetMinutes) * 60 * (m[9] === '-' ? -1 : 1);
  }
  const nanos = fractionNanos(m[7]);
  const wholeSeconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  return { ms: wholeSeconds * 1000 + Math.floor(nanos / 1_000_000), subMsNanos: nanos % 1_000_000 };
}

function parseDateOnly(text: string): FilterInstant | null {
  const m = dateOnly.exec(text);
  if (m === null) return null;
  const [year, month, day] = [m[1], m[2], m[3]].map(Number) as [number, number, number];
  if (!isCalendarDate(year, month, day)) return null;
  return { ms: daysFromCivil(year, month, day) * 86_400_000, subMsNanos: 0 };
}

/** Go's parseNanoseconds: digits past the ninth are dropped, shorter fractions scaled up. */
function fractionNanos(digits: string | undefined): number {
  if (digits === undefined) return 0;
  return Number(digits.slice(0, 9).padEnd(9, '0'));
}

/** Days since 1970-01-01 in the proleptic Gregorian calendar (Hinnant's days_from_civil), year 0 included. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** `Modified.After(bound)`, for a modified time at millisecond precision. */
export function isAfterInstant(modifiedMs: number, bound: FilterInstant): boolean {
  return modifiedMs > bound.ms;
}

/** `Modified.Before(bound)`: equal milliseconds are before a bound with nanoseconds past them. */
export function isBeforeInstant(modifiedMs: number, bound: FilterInstant): boolean {
  return modifiedMs < bound.ms || (modifiedMs === bound.ms && bound.subMsNanos > 0);
}
