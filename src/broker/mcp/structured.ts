/**
 * The data half of a tool answer (MCP `structuredContent`): the same facts as
 * the text, as fields a web backend or an agent reads without parsing
 * markdown. One home for the pieces every tool's `outputSchema` shares: the
 * world's status, the document URL, the version/etag/modified identity and
 * the world's own metadata.
 */
import { z } from 'zod';
import type { Metadata } from '../../protocol/metadata.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { MarkdownDocument } from '../../markdown/index.ts';
import { headingsReadBound } from './outline-text.ts';
import { qualifiedWorldUrl } from './go-format.ts';
import type { ListedEntry } from '../../protocol/render/list.ts';
import { compareEdges, compareUtf8, type GraphEdge, type GraphNode, type Provenance } from '../graph/index.ts';

// The fields every answer shares carry no description: their names say what they hold, and in
// thirteen outputSchemas their descriptions cost ~4.9 KB of every tools/list (docs/benchmarks.md,
// "tools/list size"). The world status (ok, not-found, conflict, ...) is also the text's first line.
export const statusField = z.string();
export const urlField = z.string();
export const metadataField = z.record(z.string(), z.string());

/** The fields every answer about one world response has. */
export const responseShape = {
  status: statusField,
  url: urlField,
  version: z.number().int().optional(),
  etag: z.string().optional(),
  modified: z.string().optional(),
  metadata: metadataField,
};

export type ResponseFields = {
  status: string;
  url: string;
  version?: number;
  etag?: string;
  modified?: string;
  metadata: Metadata;
};

/** The shared fields of one world response; `extra` metadata (tool notes) is merged over a copy. */
export function responseFields(url: string, response: MarkResponse, extra: Readonly<Metadata> = {}): ResponseFields {
  const metadata = { ...response.metadata, ...extra };
  const fields: ResponseFields = { status: response.status, url, metadata };
  const version = integerOf(metadata.version);
  if (version !== undefined) fields.version = version;
  if (metadata.etag !== undefined) fields.etag = metadata.etag;
  if (metadata.modified !== undefined) fields.modified = metadata.modified;
  return fields;
}

/** A metadata value that is a decimal integer, as a number; anything else is left out. */
export function integerOf(value: string | undefined): number | undefined {
  if (value === undefined || !/^[+-]?\d+$/.test(value.trim())) return undefined;
  const parsed = Number(value.trim());
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

/** What a write answers: the world's response, or the merge candidate mark_publish built instead of writing. */
export const writeShape = {
  ...responseShape,
  merge: z
    .object({
      your_version: z.number().int().describe('the expected_version you sent'),
      current_version: z.number().int().describe('the version someone else published in between'),
      publish_at_version: z.number().int().describe('the expected_version to publish the reviewed body with'),
      has_markers: z.boolean().describe('true when both sides changed the same lines: the body has conflict markers'),
      body: z.string().describe('the merged body to review, fix and publish'),
    })
    .optional()
    .describe('status merge-candidate: nothing was written'),
  policy_warnings: z.string().optional(),
};

/** One heading of a document's outline (mark_fetch's outline mode, mark_explore's card). */
export const outlineEntrySchema = z.object({
  level: z.number().int(),
  title: z.string(),
  anchor: z.string().describe('the #anchor that reads this section with mark_fetch'),
  lines: z.number().int().describe('the size of the section in lines'),
});

/** How many headings of a document past `outlineHeadingLimit` were not read; only when some were. */
export const headingsNotReadSchema = z
  .number()
  .int()
  .optional()
  .describe(`headings past ${headingsReadBound}, which the outline leaves out (absent when none were)`);

/** `headings_not_read` of a document, to spread into structuredContent: nothing when every heading was read. */
export function headingsNotReadData(doc: MarkdownDocument): { headings_not_read?: number } {
  return doc.unreadHeadings === 0 ? {} : { headings_not_read: doc.unreadHeadings };
}

/** The headings of a document as outline entries. */
export function outlineData(doc: MarkdownDocument): z.infer<typeof outlineEntrySchema>[] {
  return doc.outlineEntries.map((h) => ({ level: h.level, title: h.text, anchor: h.anchor, lines: h.lineCount }));
}

/** One entry of a directory listing (mark_list, mark_explore's siblings). */
export const listingEntrySchema = z.object({
  name: z.string(),
  kind: z.enum(['document', 'directory']),
  url: z.string().describe('the entry as a mark:// URL, ready for mark_fetch or mark_list'),
});

export function listingEntryData(world: string, entry: ListedEntry): z.infer<typeof listingEntrySchema> {
  return {
    name: entry.name,
    kind: entry.kind,
    url: qualifiedWorldUrl(world, entry.kind === 'directory' ? `${entry.path}/` : entry.path),
  };
}

/** The status block of an answer gathered from several worlds, and the worlds that failed. */
export const fanOutShape = {
  status: z.enum(['ok', 'partial']).describe('partial: some worlds could not answer (see failures); the rest is real'),
  worlds: z.number().int().describe('worlds asked'),
  succeeded: z.number().int(),
  failed: z.number().int(),
  failures: z
    .array(z.object({ world: z.string(), message: z.string() }))
    .describe('the worlds that could not answer, and why'),
};

export function fanOutFields(worlds: number, failures: readonly { world: string; message: string }[]) {
  return {
    status: failures.length > 0 ? ('partial' as const) : ('ok' as const),
    worlds,
    succeeded: worlds - failures.length,
    failed: failures.length,
    failures: failures.map((f) => ({ world: f.world, message: f.message })),
  };
}

/**
 * Where the broker learned an edge: `crawl` when it read the source document
 * itself (mark_graph, a change a world reported), `seed` when the edge comes
 * from a world's published /graph.md.
 */
export const provenanceField = z
  .enum(['crawl', 'seed'])
  .describe("crawl: the broker read the linking document itself; seed: from a world's published /graph.md");

export const graphNodeSchema = z.object({
  url: z.string(),
  title: z.string(),
  status: z.string().describe('the world status when read, or error / external (not followed) / "" (never read)'),
  links: z.number().int().describe('body links of the document'),
  links_cut: z
    .boolean()
    .optional()
    .describe('true when the graph holds only some of its links (more than a document may contribute, or no room)'),
  failure: z.string().optional().describe('for status error: why the document could not be read'),
});

export const graphEdgeSchema = z.object({
  from: z.string(),
  to: z.string(),
  rel: z.string().describe('the typed relation (rel-<predicate> metadata), "" for a body link'),
  label: z.string().describe('the link text of its first labelled occurrence'),
  anchor: z.string().describe('the section of the linking document holding it, "" above the first heading'),
  count: z.number().int().describe('occurrences folded into this edge'),
  provenance: provenanceField,
});

/** One link into a document: the linking document with the edge's facts. */
export const backlinkSchema = z.object({
  url: z.string().describe('the linking document'),
  title: z.string(),
  status: z.string(),
  rel: z.string(),
  label: z.string(),
  anchor: z.string(),
  count: z.number().int(),
  provenance: provenanceField,
  origin: z
    .object({ kind: z.enum(['hub', 'world']), world: z.string() })
    .optional()
    .describe("for a seeded row: the hub's federation crawl or the world's own /graph.md it came from"),
});

export function graphNodeData(node: GraphNode): z.infer<typeof graphNodeSchema> {
  return {
    url: node.url,
    title: node.title,
    status: node.status,
    links: node.linkCount,
    ...(node.linksCut === true ? { links_cut: true } : {}),
    ...(node.failure !== undefined ? { failure: node.failure } : {}),
  };
}

export function graphEdgeData(edge: GraphEdge, provenance: Provenance): z.infer<typeof graphEdgeSchema> {
  const { from, to, rel, label, anchor } = edge;
  return { from, to, rel, label, anchor, count: Math.max(edge.count, 1), provenance };
}

/** A link graph as data, the fields mark_graph and mark_graph_export share. */
const graphShape = {
  status: z.literal('ok'),
  nodes: z.array(graphNodeSchema).describe('sorted by URL'),
  edges: z.array(graphEdgeSchema).describe('sorted by from, to, relation'),
};

/** mark_graph: what one crawl saw, whole (the tool takes no offset: its answer is never paged). */
export const crawlGraphShape = {
  ...graphShape,
  url: z.string().describe('the document the crawl started from'),
  node_count: z.number().int().describe("the crawl's nodes"),
  edge_count: z.number().int().describe("the crawl's edges"),
  not_recorded: z
    .array(z.string())
    .optional()
    .describe('documents this crawl read that the shared graph had no room to record'),
};

/** mark_graph_export: one page of the whole store, asked for by offset. */
export const exportGraphShape = {
  ...graphShape,
  node_count: z.number().int().describe("the whole graph's nodes, of which nodes holds one page"),
  edge_count: z.number().int().describe("the whole graph's edges, of which edges holds one page"),
  offset: z.number().int().describe('the rows (nodes, then edges) before this page'),
  next_offset: z.number().int().optional().describe('the offset of the next page; absent on the last page'),
};

export function graphData(
  nodes: Iterable<GraphNode>,
  edges: Iterable<GraphEdge>,
  provenance: (sourceUrl: string) => Provenance,
  start: { url?: string } = {},
) {
  const nodeList = [...nodes].sort((a, b) => compareUtf8(a.url, b.url)).map(graphNodeData);
  const edgeList = [...edges].sort(compareEdges).map((edge) => graphEdgeData(edge, provenance(edge.from)));
  return {
    status: 'ok' as const,
    ...(start.url === undefined ? {} : { url: start.url }),
    node_count: nodeList.length,
    edge_count: edgeList.length,
    nodes: nodeList,
    edges: edgeList,
  };
}
