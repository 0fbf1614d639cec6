import { maxBodyBytes } from '../../../protocol/limits.ts';
import { compareUtf8 } from '../model.ts';
import type { WorldCrawl } from './world-crawl.ts';

/**
 * Why the federation's `/graph.md` was not published, for the operator who
 * reads the crawl's summary: its size against Mark's body limit
 * (src/protocol/limits.ts), that the hub keeps its previous graph, the world
 * with the most documents, and what to do. Rows and links never get here:
 * each world is cut to its share of the export first (export-share.ts), down
 * to no rows at all, so a refusal means that the header and the partial
 * section's one line per world do not fit, a federation of thousands of
 * worlds (docs/decisions.md, 2026-12-07).
 */
export function oversizedGraphDetail(bytes: number, crawls: readonly WorldCrawl[]): string {
  const perWorld = crawls.map((crawl) => ({ world: crawl.world.name, documents: crawl.records.size }));
  const total = perWorld.reduce((sum, w) => sum + w.documents, 0);
  const top = perWorld.sort((a, b) => b.documents - a.documents || compareUtf8(a.world, b.world))[0];
  let out = `/graph.md would be ${bytes} bytes, over the ${maxBodyBytes}-byte body limit of a Mark document, even with every world's rows and links left out (only its header and one line per world), so it was not published: the hub keeps its previous /graph.md, which brokers go on seeding from, and this run's crawl state is withheld with it.`;
  if (top !== undefined && top.documents > 0)
    out += ` Most documents are in ${top.world} (${top.documents} of ${total}).`;
  out += ' Give some worlds a hub of their own (a second crawl with its own config), then run the crawl again.';
  return out;
}
