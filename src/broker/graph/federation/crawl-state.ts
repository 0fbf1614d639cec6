import { formatRfc3339, parseRfc3339 } from '../../../protocol/time.ts';
import { escapeCell, unescapeCell } from '../graph-export.ts';

/**
 * The federation crawl's per-world state document on the hub, at
 * `/.demarkus/crawl-state/<world>.md` (a dot directory, so LIST never shows
 * it and no crawl reads it as content): the etag of every document the last
 * crawl read, so the next one can FETCH with `if-none-match` and reuse what
 * `/graph.md` and the world's content index already say about unchanged
 * documents.
 *
 *     # Federation Crawl State
 *
 *     > Format: demarkus-broker-crawl-state/v1
 *     > World: team-a
 *     > Crawled: 2026-01-01T00:00:00Z
 *     > Documents: 1
 *     > Changed-After: 2025-12-31T23:58:00Z
 *
 *     | Path | Etag |
 *     |------|------|
 *     | /docs/a.md | 693067c4… |
 */
export const crawlStateFormat = 'demarkus-broker-crawl-state/v1';

export function crawlStatePath(world: string): string {
  return `/.demarkus/crawl-state/${world}.md`;
}

export function buildCrawlState(
  world: string,
  crawledAt: Date,
  etags: ReadonlyMap<string, string>,
  changedAfter: Date | null,
): string {
  const paths = [...etags.keys()].sort();
  const since = changedAfter === null ? '' : `> Changed-After: ${formatRfc3339(changedAfter)}\n`;
  let out = `# Federation Crawl State\n\n> Format: ${crawlStateFormat}\n> World: ${world}\n> Crawled: ${formatRfc3339(crawledAt)}\n> Documents: ${paths.length}\n${since}\n| Path | Etag |\n|------|------|\n`;
  for (const path of paths) out += `| ${escapeCell(path)} | ${etags.get(path)} |\n`;
  return out;
}

export type ParsedCrawlState = { etags: Map<string, string>; changedAfter: Date | null };

/**
 * Path → etag and the change cutoff; empty for another format or another world's document (never
 * trusted), and for a cutoff later than `now`, the crawl's clock. The crawl never writes a cutoff
 * past the start of the crawl that earned it (world-crawl.ts `nextCutoff`), so such a state was
 * written by someone else, and it would freeze the world: the catalog names no document changed
 * after a future instant, and the crawl carries the later cutoff forward. The whole state goes,
 * not only its cutoff, so every document is read afresh and the rows it vouched for are replaced
 * (docs/decisions.md, "A crawl state with a future cutoff is not trusted").
 */
export function parseCrawlState(world: string, body: string, now: Date): ParsedCrawlState {
  const etags = new Map<string, string>();
  const untrusted = { etags, changedAfter: null };
  if (!body.includes(`> Format: ${crawlStateFormat}\n`) || !body.includes(`> World: ${world}\n`)) return untrusted;
  const since = /^> Changed-After: (\S+)$/m.exec(body);
  const changedAfter = since === null ? null : parseRfc3339(since[1]!);
  if (changedAfter !== null && changedAfter.getTime() > now.getTime()) return untrusted;
  for (const line of body.split('\n')) {
    const m = /^\| ((?:[^\\|]|\\.)+) \| ([0-9a-f]{64}) \|$/.exec(line);
    if (m !== null) etags.set(unescapeCell(m[1]!), m[2]!);
  }
  return { etags, changedAfter };
}
