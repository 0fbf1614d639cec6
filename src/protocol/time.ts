/** RFC 3339 in UTC at second precision, as Go's `time.RFC3339` prints a UTC time. */
export function formatRfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Drops sub-second precision, as the file store does with mtimes. */
export function truncateToSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses RFC 3339 strictly (Go's time.Parse(time.RFC3339, s)); null when it does not parse. */
export function parseRfc3339(text: string): Date | null {
  const m = rfc3339.exec(text);
  if (m === null) return null;
  const [month, day, hour, minute, second] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(Number(m[1]), month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(text.toUpperCase());
  return Number.isNaN(date.getTime()) ? null : date;
}
