import { maxBodyBytes } from '../../../protocol/limits.ts';
import { defaultGraphBounds } from '../graph-bounds.ts';
import { documentUrl } from '../link-url.ts';
import { compareUtf8 } from '../model.ts';
import type { WorldCrawl } from './world-crawl.ts';

/** Documents named as the largest contributors: enough to act on, short enough to read in a log line. */
const documentsNamed = 3;

/**
 * Why the federation's `/graph.md` was not published, for the operator who
 * reads the crawl's summary: its size against Mark's body limit
 * (src/protocol/limits.ts), that the hub keeps its previous graph, the world
 * and documents holding the most links, and what to do. Every document is
 * already held to the link graph's per-document share
 * (src/broker/graph/graph-bounds.ts), so only many link-heavy documents get
 * here; the crawl refuses rather than publish a part of the graph
 * (docs/decisions.md, 2026-12-06).
 */
export function oversizedGraphDetail(bytes: number, crawls: readonly WorldCrawl[]): string {
  const perWorld = crawls.map((crawl) => ({
    world: crawl.world.name,
    links: [...crawl.records.values()].reduce((sum, record) => sum + record.edges.length, 0),
  }));
  const total = perWorld.reduce((sum, w) => sum + w.links, 0);
  const top = perWorld.sort((a, b) => b.links - a.links || compareUtf8(a.world, b.world))[0];
  let out = `/graph.md would be ${bytes} bytes, over the ${maxBodyBytes}-byte body limit of a Mark document, so it was not published: the hub keeps its previous /graph.md, which brokers go on seeding from, and this run's crawl state is withheld with it.`;
  const crawl = crawls.find((c) => c.world.name === top?.world);
  if (top !== undefined && crawl !== undefined && top.links > 0) {
    const heaviest = [...crawl.records]
      .map(([path, record]) => ({ url: documentUrl(crawl.world.name, path), links: record.edges.length }))
      .sort((a, b) => b.links - a.links || compareUtf8(a.url, b.url))
      .slice(0, documentsNamed)
      .map((doc) => `${doc.url} (${doc.links} links)`);
    out += ` Most links are in ${top.world} (${top.links} of ${total} links), the most in ${heaviest.join(', ')}.`;
  }
  out += ` Ask that world's writers to split or trim the documents with the most links (the graph keeps at most ${defaultGraphBounds.linksPerDocument} of each), then run the crawl again.`;
  return out;
}
