import { formatRfc3339 } from '../../protocol/time.ts';
import { defaultPort } from '../../protocol/limits.ts';

/**
 * The legacy content-hash index (Mark reference §7, SPEC §12.1; client
 * index package): which server holds the body with a given `sha256-` hash.
 *
 *     # Content Index
 *
 *     > Source: mark://team-a
 *     > Indexed: 2026-01-01T00:00:00Z
 *     > Documents: 2
 *
 *     | Hash | Server | Path |
 *     |------|--------|------|
 *     | sha256-… | mark://team-a | /a.md |
 *
 * The federation crawl publishes one per world at `/index/<host:port>.md` on
 * the hub; mark_index and mark_resolve read and write the same format.
 */
export type IndexEntry = { hash: string; server: string; path: string };

export const contentHashPattern = /^sha256-[0-9a-f]{64}$/;

export function buildContentIndex(source: string, indexedAt: Date, entries: readonly IndexEntry[]): string {
  const rows = entries.map((e) => `| ${e.hash} | ${e.server} | ${e.path} |\n`).join('');
  return `# Content Index\n\n> Source: ${source}\n> Indexed: ${formatRfc3339(indexedAt)}\n> Documents: ${entries.length}\n\n| Hash | Server | Path |\n|------|--------|------|\n${rows}`;
}

/**
 * index.Parse: every table's rows after its header and separator, three
 * non-blank cells each; anything else is skipped.
 */
export function parseContentIndex(body: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  let tableRow = 0;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('|')) {
      tableRow = 0;
      continue;
    }
    if (tableRow++ < 2) continue;
    const cells = line.slice(1).split('|');
    if (cells.length !== 4 || cells[3] !== '') continue;
    const [hash, server, path] = cells.slice(0, 3).map((c) => c.trim()) as [string, string, string];
    if ([hash, server, path].every((c) => /^\S+$/.test(c))) entries.push({ hash, server, path });
  }
  return entries;
}

/** index.Merge: drops the source server's rows (compared canonically), then appends its fresh ones. */
export function mergeContentIndex(
  existing: readonly IndexEntry[],
  sourceServer: string,
  fresh: readonly IndexEntry[],
): IndexEntry[] {
  const source = canonicalServer(sourceServer);
  return [...existing.filter((e) => canonicalServer(e.server) !== source), ...fresh];
}

/** Trailing slashes and the default port do not make a different server. */
export function canonicalServer(server: string): string {
  return server
    .replace(/\/+$/, '')
    .replace(new RegExp(`:${defaultPort}$`), '')
    .toLowerCase();
}
