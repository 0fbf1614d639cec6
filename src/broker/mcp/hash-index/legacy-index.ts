import { formatRfc3339 } from '../../../protocol/time.ts';
import { defaultPort } from '../../../protocol/limits.ts';
import { parseMarkUrl } from '../../../protocol/mark-url.ts';

/**
 * The legacy hash index document (Mark reference §7, SPEC §12.1; Go
 * client/index Build/Parse/Merge): which server holds the content with a
 * given hash, at which path.
 *
 * ```
 * # Content Index
 *
 * > Source: mark://team-a
 * > Indexed: 2026-01-01T00:00:00Z
 * > Documents: 1
 *
 * | Hash | Server | Path |
 * |------|--------|------|
 * | sha256-… | mark://team-a | /a.md |
 * ```
 *
 * TODO(lead): move to a shared module when the v2 sharded format lands.
 */
export type IndexEntry = { hash: string; server: string; path: string };

export function buildIndex(source: string, indexedAt: Date, entries: readonly IndexEntry[]): string {
  let out = '# Content Index\n\n';
  out += `> Source: ${source}\n> Indexed: ${formatRfc3339(indexedAt)}\n> Documents: ${entries.length}\n`;
  out += '\n| Hash | Server | Path |\n|------|--------|------|\n';
  for (const entry of entries) out += `| ${entry.hash} | ${entry.server} | ${entry.path} |\n`;
  return out;
}

const rowPattern = /^\|\s*(\S+)\s*\|\s*(\S+)\s*\|\s*(\S+)\s*\|$/;

/**
 * Rows of every table in the document: in each run of `|` lines the first is
 * the header and the second the separator; rows that do not have three
 * single-word cells are skipped (lenient, as the reference reads it).
 */
export function parseIndex(body: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  let rowInTable = -1;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('|')) {
      rowInTable = -1;
      continue;
    }
    rowInTable++;
    if (rowInTable < 2) continue;
    const match = rowPattern.exec(line);
    if (match) entries.push({ hash: match[1]!, server: match[2]!, path: match[3]! });
  }
  return entries;
}

/** Replaces every entry of `source` (any spelling of the same server) with `fresh`; other servers' rows stay. */
export function mergeIndex(
  existing: readonly IndexEntry[],
  source: string,
  fresh: readonly IndexEntry[],
): IndexEntry[] {
  const wanted = canonicalServer(source);
  return [...existing.filter((entry) => canonicalServer(entry.server) !== wanted), ...fresh];
}

/** A server's identity: `mark://host[:port]`, host lower-cased, default port and trailing path dropped. */
export function canonicalServer(server: string): string {
  try {
    const url = parseMarkUrl(server);
    return `mark://${url.host}${url.port === defaultPort ? '' : `:${url.port}`}`;
  } catch {
    return server;
  }
}
