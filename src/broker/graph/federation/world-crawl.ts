import { Status } from '../../../protocol/status.ts';
import { prefixedSha256 } from '../../../protocol/token.ts';
import { parseRfc3339 } from '../../../protocol/time.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import type { WorldGateway, WorldInfo } from '../../worlds/gateway.ts';
import { contentHashPattern } from '../../../protocol/render/content-index.ts';
import { textBody } from '../crawler.ts';
import { documentLinks } from '../document-links.ts';
import { documentLinkBounds } from '../graph-bounds.ts';
import { documentUrl, isMarkUrl } from '../link-url.ts';
import { edgeKey, foldOccurrence, type GraphEdge } from '../model.ts';
import { readWithBackoff } from '../read-retry.ts';
import { runPool } from '../../../concurrency/pool.ts';
import type { WorldDirectory } from '../world-urls.ts';
import type { DocumentRecord, WorldCrawlState } from './crawl-record.ts';
import { changedSince } from './catalog-changes.ts';
import { listedAsAbsent, walkWorld, type WalkLimits } from '../../worlds/world-walk.ts';

/**
 * One world's share of a federation crawl: LIST the whole tree, then FETCH
 * every document, conditionally (`if-none-match`) when the previous crawl has
 * a record for it, reusing that record on `not-modified`. What cannot be read
 * this time (a failed FETCH, a path beyond a bound, a directory whose LIST
 * failed) keeps its previous record: a failed crawl never blanks what was
 * known. A path a fully listed directory no longer names is gone, whatever
 * else failed. The world is complete when its listing was and every listed document
 * has a record with a verified content hash; only then is its index
 * authoritative.
 *
 * When the previous crawl left a change cutoff, one catalog LOOKUP names the
 * documents modified since; the others keep their records without any
 * request. The next cutoff advances only after a complete crawl (every record
 * verified by it), to at most the crawl's start in the world's clock: the
 * newest `modified` it read, minus the crawl's duration and a margin.
 */
export type WorldCrawl = WorldCrawlCounts & {
  world: WorldInfo;
  records: Map<string, DocumentRecord>;
  changedAfter: Date | null;
};

/** What a world's crawl counts, reported as they are in the federation crawl's summary (federation-crawl.ts). */
export type WorldCrawlCounts = {
  listed: number;
  fetched: number;
  /** Unchanged documents: `not-modified` answers plus those the catalog vouched for. */
  skipped: number;
  /** Of `skipped`, those that needed no request at all. */
  skippedByCatalog: number;
  failed: number;
  /** Documents read by this crawl whose links were cut at the graph's per-document bounds. */
  linksCut: number;
  complete: boolean;
  problems: string[];
};

/** Slack for second-truncated `modified` times and small clock steps. */
export const changeCutoffMarginMs = 60_000;

export type WorldCrawlOptions = {
  limits: WalkLimits;
  directory: WorldDirectory;
  previous: WorldCrawlState | undefined;
  exclude?: (path: string) => boolean;
  signal?: AbortSignal;
};

export async function crawlWorld(
  gateway: WorldGateway,
  world: WorldInfo,
  options: WorldCrawlOptions,
): Promise<WorldCrawl> {
  const started = performance.now();
  const listing = await walkWorld(gateway, world.name, options.limits, {
    ...(options.exclude ? { exclude: options.exclude } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const previousRecords = options.previous?.records;
  const cutoff = options.previous?.changedAfter ?? null;
  const changed =
    cutoff === null || !listing.complete ? null : await changedSince(gateway, world.name, cutoff, options.signal);
  const result: WorldCrawl = {
    world,
    records: new Map(),
    listed: listing.documents.length,
    fetched: 0,
    skipped: 0,
    skippedByCatalog: 0,
    failed: 0,
    linksCut: 0,
    complete: listing.complete,
    problems: [...listing.problems],
    changedAfter: null,
  };
  let newestModified = Number.NEGATIVE_INFINITY;
  const visit = async (path: string) => {
    const previous = previousRecords?.get(path);
    if (previous !== undefined && previous.contentHash !== '' && changed !== null && !changed.has(path)) {
      result.records.set(path, previous);
      result.skipped++;
      result.skippedByCatalog++;
      return;
    }
    const outcome = await readDocument(gateway, world.name, path, previous, options);
    if (outcome.kind === 'read') {
      result.fetched++;
      if (outcome.linksCut) result.linksCut++;
      newestModified = Math.max(newestModified, outcome.modified);
    }
    if (outcome.kind === 'unchanged') result.skipped++;
    if (outcome.kind === 'failed') {
      result.failed++;
      result.problems.push(`${path}: ${outcome.reason}`);
    }
    const record = outcome.kind === 'gone' ? undefined : (outcome.record ?? previous);
    if (record !== undefined) result.records.set(path, record);
    if (outcome.kind !== 'gone' && (record === undefined || record.contentHash === '')) result.complete = false;
  };
  await runPool([...listing.documents], visit, {
    workers: options.limits.workers,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!listing.complete && previousRecords) {
    // Only what the walk did not reach keeps its record: a path a fully listed
    // directory no longer names was deleted, archived or read-protected, and
    // the hub's /graph.md, which every caller reads, must not go on naming it.
    for (const [path, record] of previousRecords)
      if (!result.records.has(path) && !options.exclude?.(path) && !listedAsAbsent(listing, path))
        result.records.set(path, record);
  }
  if (result.failed > 0 || options.signal?.aborted) result.complete = false;
  result.changedAfter = nextCutoff(cutoff, result.complete, newestModified, performance.now() - started);
  return result;
}

/** Never later than this crawl's start in the world's clock; unchanged after an incomplete crawl. */
function nextCutoff(previous: Date | null, complete: boolean, newestModified: number, durationMs: number): Date | null {
  if (!complete) return previous;
  const candidate = Number.isFinite(newestModified)
    ? newestModified - durationMs - changeCutoffMarginMs
    : Number.NEGATIVE_INFINITY;
  const best = Math.max(previous?.getTime() ?? Number.NEGATIVE_INFINITY, candidate);
  return Number.isFinite(best) ? new Date(best) : null;
}

type ReadOutcome =
  | { kind: 'read'; record: DocumentRecord; modified: number; linksCut: boolean }
  | { kind: 'unchanged'; record: DocumentRecord }
  | { kind: 'gone'; record?: undefined }
  | { kind: 'failed'; reason: string; record?: undefined };

async function readDocument(
  gateway: WorldGateway,
  world: string,
  path: string,
  previous: DocumentRecord | undefined,
  options: WorldCrawlOptions,
): Promise<ReadOutcome> {
  let response: MarkResponse;
  try {
    response = await readWithBackoff(gateway, world, {
      verb: 'FETCH',
      path,
      ...(previous && previous.etag !== '' ? { metadata: { 'if-none-match': previous.etag } } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
  }
  if (response.status === Status.NotModified && previous) return { kind: 'unchanged', record: previous };
  // Archived or removed between LIST and FETCH: no longer part of the world.
  if (response.status === Status.NotFound || response.status === Status.Archived) return { kind: 'gone' };
  if (response.status !== Status.Ok) return { kind: 'failed', reason: `status ${response.status || '(none)'}` };
  const modified = parseRfc3339(response.metadata.modified ?? '')?.getTime() ?? Number.NEGATIVE_INFINITY;
  const { record, linksCut } = documentRecord(world, path, response, options.directory);
  return { kind: 'read', record, modified, linksCut };
}

/**
 * A read document as a record; an unverifiable content hash is left empty (the
 * index will be incomplete). Its links are held to one document's share of the
 * link graph (src/broker/graph/graph-bounds.ts), as the broker's own crawl
 * holds them: every link of a 1 MiB document made the hub's /graph.md too
 * large to publish, for every world (test/security/federation-link-flood.test.ts).
 */
export function documentRecord(
  world: string,
  path: string,
  response: MarkResponse,
  directory: WorldDirectory,
): { record: DocumentRecord; linksCut: boolean } {
  const url = documentUrl(world, path);
  const declared = response.metadata['content-hash'] ?? '';
  // mark_resolve verifies hashes too; an index row must name the bytes actually served.
  const contentHash = contentHashPattern.test(declared) && declared === prefixedSha256(response.body) ? declared : '';
  const body = textBody(response.body);
  const links =
    body === null
      ? { title: '', linkCount: 0, edges: [], distinctEdges: 0 }
      : documentLinks(url, body, response.metadata, directory, documentLinkBounds);
  const record = {
    etag: response.metadata.etag ?? '',
    contentHash,
    title: links.title,
    linkCount: links.linkCount,
    edges: aggregate(links.edges.filter((e) => isMarkUrl(e.to))),
  };
  return { record, linksCut: links.linksCut === true };
}

function aggregate(edges: readonly GraphEdge[]): GraphEdge[] {
  const byKey = new Map<string, GraphEdge>();
  for (const edge of edges) {
    const key = edgeKey(edge);
    const current = byKey.get(key);
    if (current === undefined) byKey.set(key, { ...edge });
    else foldOccurrence(current, edge);
  }
  return [...byKey.values()];
}
