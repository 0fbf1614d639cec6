import { defaultPort } from '../limits.ts';
import { parseMarkUrl } from '../mark-url.ts';
import { formatRfc3339 } from '../time.ts';

/**
 * The legacy content-hash index (Mark SPEC §12.1; the Go client's index
 * package Build/Parse/Merge): which server holds the body with a given
 * `sha256-` hash, at which path.
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
 * mark_index writes it, mark_resolve reads it, and the federation crawl
 * publishes one per world at `/index/<host:port>.md` on the hub.
 */
export type IndexEntry = { hash: string; server: string; path: string };

export const contentHashPattern = /^sha256-[0-9a-f]{64}$/;

export function renderContentIndex(source: string, indexedAt: Date, entries: readonly IndexEntry[]): string {
  const rows = entries.map((e) => `| ${e.hash} | ${e.server} | ${e.path} |\n`).join('');
  return `# Content Index\n\n> Source: ${source}\n> Indexed: ${formatRfc3339(indexedAt)}\n> Documents: ${entries.length}\n\n| Hash | Server | Path |\n|------|--------|------|\n${rows}`;
}

/**
 * index.Parse: every table's rows after its header and separator, three
 * non-blank cells each; anything else is skipped (lenient, as the reference
 * reads it: a hand-edited index still resolves what it can).
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

/**
 * A server's identity: `mark://host[:port]`, host lower-cased, the default
 * port and any path dropped, so `mark://Team-A:6309/` and `mark://team-a` are
 * one server. A value that is not a `mark://` URL is compared as written.
 */
export function canonicalServer(server: string): string {
  try {
    const url = parseMarkUrl(server);
    return `mark://${url.host}${url.port === defaultPort ? '' : `:${url.port}`}`;
  } catch {
    return server;
  }
}
