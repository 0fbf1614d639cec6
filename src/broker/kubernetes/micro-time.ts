/**
 * Lease times are `MicroTime` (coordination.k8s.io/v1): the API server parses
 * them with the layout `2006-01-02T15:04:05.000000Z07:00`, exactly six
 * fractional digits, and answers 400 to `Date#toISOString()`'s three. The
 * client library passes strings through untouched, so we send strings.
 */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Milliseconds since the epoch of a MicroTime as read back (a string; a Date from other callers); NaN when absent. */
export function parseMicroTime(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}
