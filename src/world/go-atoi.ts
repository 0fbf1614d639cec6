/**
 * Go's `strconv.Atoi` on a 64-bit platform, the one reading of integer metadata
 * the Go server does (LOOKUP `limit`, PUBLISH and APPEND `expected-version`):
 * an optional `+` or `-`, then ASCII digits, within int64. Answers undefined
 * where Atoi returns an error (spaces, other bases, underscores, overflow).
 */
export function goAtoi(raw: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(raw)) return undefined;
  const value = BigInt(raw);
  return value > int64Max || value < int64Min ? undefined : value;
}

/** The largest version a number holds exactly; a store's versions stay below it. */
export const maxSafeVersion = BigInt(Number.MAX_SAFE_INTEGER);

const int64Max = 2n ** 63n - 1n;
const int64Min = -(2n ** 63n);
