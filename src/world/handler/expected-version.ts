import { goAtoi, maxSafeVersion } from '../go-atoi.ts';

/**
 * The `expected-version` a PUBLISH or APPEND carries (Mark SPEC §6.4, §6.6):
 * absent or "" is `null`, otherwise what Go's strconv.Atoi reads (`+1` and
 * `-0` are Atoi's too), not below `minimum`: 0 for PUBLISH (0 = create-only),
 * 1 for APPEND, as Go's handlePublish and handleAppend. Each handler words its
 * own refusal.
 */
export function parseExpectedVersion(value: string | undefined, minimum: 0 | 1): number | null | 'invalid' {
  if (value === undefined || value === '') return null;
  const n = goAtoi(value);
  // Beyond 2^53 a version cannot be held exactly, nor ever reached: refused, as before Atoi's reading.
  return n === undefined || n < BigInt(minimum) || n > maxSafeVersion ? 'invalid' : Number(n);
}
