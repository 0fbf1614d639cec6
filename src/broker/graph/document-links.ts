import type { Metadata } from '../../protocol/metadata.ts';
import { documentTitle, linksAndHeadings } from '../../markdown/index.ts';
import { withinLinkBound } from './graph-bounds.ts';
import { resolveLinkTarget } from './link-url.ts';
import { edgeKey, type GraphEdge } from './model.ts';
import type { WorldDirectory } from './world-urls.ts';

/**
 * What one read document contributes to the graph: its title, its body link
 * count and one edge per link occurrence (body links with label and section
 * anchor, then typed `rel-<predicate>` edges from its metadata). Targets are
 * resolved against the document URL (RFC 3986) and known world spellings are
 * rewritten to `mark://{worldName}`. `distinctEdges` counts the distinct
 * edges ({from, to, rel}) those occurrences make: the links they add to a
 * graph, which a crawl takes from its room (src/broker/graph/crawler.ts)
 * without telling them apart again.
 */
export type DocumentLinks = {
  title: string;
  linkCount: number;
  edges: GraphEdge[];
  distinctEdges: number;
  linksCut?: boolean;
};

/** A document's share of the link graph: link occurrences scanned, distinct edges kept. */
export type LinkBounds = { scanned: number; distinct: number };

/** No bound: every link occurrence is scanned and kept (`linksAndHeadings` scans to the end). */
const everyLink: LinkBounds = { scanned: Number.POSITIVE_INFINITY, distinct: Number.POSITIVE_INFINITY };

/**
 * With `bounds` (the link graph's, src/broker/graph/graph-bounds.ts), the scan
 * stops after `scanned` link occurrences, only occurrences of `distinct`
 * edges are kept (typed relations first, then body links in document order),
 * and `linksCut` says when anything was left out. Without `bounds` (the
 * doctor, which reads every link) nothing is left out; the one path still
 * counts `distinctEdges`, one set of edge keys per document.
 */
export function documentLinks(
  docUrl: string,
  body: string,
  metadata: Metadata,
  worlds: WorldDirectory,
  bounds: LinkBounds = everyLink,
): DocumentLinks {
  const { links, headings, cut } = linksAndHeadings(body, bounds.scanned);
  const edges: GraphEdge[] = links.map((link) => ({
    from: docUrl,
    to: worlds.translateCanonical(resolveLinkTarget(docUrl, link.dest)),
    rel: '',
    label: link.label,
    anchor: link.anchor,
    count: 1,
  }));
  for (const ref of relReferences(docUrl, metadata, worlds))
    edges.push({ from: docUrl, to: ref.target, rel: ref.rel, label: '', anchor: '', count: 1 });
  const title = documentTitle(headings) || (metadata.title ?? '').trim();
  const kept = firstDistinct(edges, bounds.distinct);
  return {
    title,
    linkCount: links.length,
    edges: kept.occurrences,
    distinctEdges: kept.distinct,
    ...(cut || kept.occurrences.length < edges.length ? { linksCut: true } : {}),
  };
}

/**
 * Occurrences of `limit` distinct edges, typed relations first (`withinLinkBound`),
 * in document order, and how many distinct edges they are.
 */
function firstDistinct(edges: GraphEdge[], limit: number): { occurrences: GraphEdge[]; distinct: number } {
  const firstOfEach = new Map<string, GraphEdge>();
  for (const edge of edges) if (!firstOfEach.has(edgeKey(edge))) firstOfEach.set(edgeKey(edge), edge);
  const kept = new Set(withinLinkBound([...firstOfEach.values()], limit).map(edgeKey));
  return { occurrences: edges.filter((edge) => kept.has(edgeKey(edge))), distinct: kept.size };
}

/**
 * `rel-<predicate>` metadata (Mark SPEC §8, demarkus ADR 0004): a comma list of
 * references resolved against the document URL. Empty references, ones with
 * inner whitespace and references to the document itself are skipped: bad
 * metadata never fails a crawl.
 */
export function relReferences(
  docUrl: string,
  metadata: Metadata,
  worlds: WorldDirectory,
): Array<{ rel: string; target: string }> {
  const refs: Array<{ rel: string; target: string }> = [];
  for (const key of Object.keys(metadata).sort()) {
    if (!key.startsWith('rel-') || key.length === 'rel-'.length) continue;
    const rel = key.slice('rel-'.length);
    for (const part of (metadata[key] ?? '').split(',')) {
      const ref = part.trim();
      if (ref === '' || /\s/u.test(ref)) continue;
      const target = worlds.translateCanonical(resolveLinkTarget(docUrl, ref));
      if (target !== docUrl) refs.push({ rel, target });
    }
  }
  return refs;
}
