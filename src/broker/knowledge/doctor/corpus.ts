import { createHash } from 'node:crypto';
import { Status } from '../../../protocol/status.ts';
import { isHubOutput } from '../../graph/index.ts';
import { runPool } from '../../../concurrency/pool.ts';
import { firstListingProblem, walkWorld } from '../../worlds/index.ts';
import type { WorldGateway, WorldInfo, WorldListing } from '../../worlds/index.ts';
import type { DoctorDocument } from './diagnose.ts';

/**
 * What the doctor reads: every document the given worlds list, through the
 * gateway's reads (so exactly what the caller may read), within a bound on
 * documents, bytes and time. LIST never shows dot entries or archived
 * documents (Mark SPEC LIST), so nothing under `/.well-known/` or
 * `/.demarkus/` is read. The hub's generated outputs (`/graph.md`, `/index/*`,
 * `/.demarkus/*`) are not content and are skipped, as the federation crawl
 * skips them.
 */
export type CorpusLimits = { maxDocuments: number; maxBytes: number; timeMs: number; workers: number };

/**
 * 5,000 documents, 64 MiB of bodies and 20 s per report, 8 reads in flight: bounded for the caller and
 * for the worlds. The bodies are held until the report is judged, and a body may be 1 MiB
 * (src/protocol/limits.ts), so without the byte bound one report could hold 5 GiB.
 */
export const defaultCorpusLimits: CorpusLimits = {
  maxDocuments: 5000,
  maxBytes: 64 * 1024 * 1024,
  timeMs: 20_000,
  workers: 8,
};

export type Corpus = {
  documents: DoctorDocument[];
  /**
   * Worlds whose every listed document was read, each with its listing: the listing also names what the
   * doctor skips (the hub's `/graph.md`), so a link there is judged by what the world holds, not by what was read.
   */
  completeWorlds: Map<string, WorldListing>;
  /** Worlds (or parts of them) the report could not cover, and why. */
  notExamined: Array<{ world: string; reason: string }>;
};

/**
 * The remedy for a report a bound cut short (bytes read here, comparisons in diagnose.ts): a run over
 * fewer worlds, through the tool's `worlds` argument, covers the rest. One phrase for every such reason.
 */
export const examineFewerWorlds = 'examine fewer worlds at a time (worlds)';

const utf8 = new TextDecoder('utf-8', { fatal: false });

export async function collectCorpus(
  gateway: WorldGateway,
  worlds: readonly WorldInfo[],
  options: { hub: string; limits?: CorpusLimits; signal?: AbortSignal },
): Promise<Corpus> {
  const limits = options.limits ?? defaultCorpusLimits;
  const budget = AbortSignal.any([AbortSignal.timeout(limits.timeMs), ...(options.signal ? [options.signal] : [])]);
  const corpus: Corpus = { documents: [], completeWorlds: new Map(), notExamined: [] };
  let remaining = limits.maxDocuments;
  let bytesLeft = limits.maxBytes;
  const byteBound = `byte bound reached (${limits.maxBytes / (1024 * 1024)} MiB of documents per report)`;
  for (const world of worlds) {
    if (budget.aborted || remaining <= 0 || bytesLeft <= 0) {
      corpus.notExamined.push({
        world: world.name,
        reason: budget.aborted
          ? 'time budget spent'
          : remaining <= 0
            ? 'document bound reached'
            : `${byteBound}; ${examineFewerWorlds}`,
      });
      continue;
    }
    const listing = await walkWorld(
      gateway,
      world.name,
      { maxDocuments: remaining, maxLists: remaining, maxDepth: 32, workers: limits.workers },
      { ...(world.name === options.hub ? { exclude: isHubOutput } : {}), signal: budget },
    );
    let failed = 0;
    let overBytes = false;
    await runPool(
      listing.documents.slice(0, remaining),
      async (path) => {
        if (bytesLeft <= 0) {
          overBytes = true;
          return;
        }
        const document = await readDocument(gateway, world.name, path, budget);
        if (document === undefined) failed++;
        // Reads in flight may pass the bound together; a body that does not fit is dropped, not held.
        else if (document.bytes > bytesLeft) {
          overBytes = true;
          bytesLeft = 0;
        } else {
          bytesLeft -= document.bytes;
          corpus.documents.push(document);
        }
      },
      { workers: limits.workers, signal: budget },
    );
    const read = corpus.documents.filter((doc) => doc.world === world.name).length;
    remaining -= read;
    if (listing.complete && failed === 0 && read === listing.documents.length)
      corpus.completeWorlds.set(world.name, listing);
    else
      corpus.notExamined.push({
        world: world.name,
        reason: budget.aborted
          ? 'time budget spent before every document was read'
          : overBytes
            ? `${byteBound} before every document was read; ${examineFewerWorlds}`
            : shortfall(listing, failed),
      });
  }
  corpus.documents.sort((a, b) => (a.world === b.world ? (a.path < b.path ? -1 : 1) : a.world < b.world ? -1 : 1));
  return corpus;
}

/**
 * Why a world was not covered, from what went wrong: the walk's first problem
 * (a down world's refusal, a LIST status, a bound: world-walk.ts words them for
 * the agent) and the documents that could not be read. A world that could not
 * be listed at all read as "0 of 0 documents could not be read" before.
 */
function shortfall(listing: WorldListing, failed: number): string {
  const reasons: string[] = [];
  if (!listing.complete) reasons.push(`listing incomplete: ${firstListingProblem(listing)}`);
  if (failed > 0) reasons.push(`${failed} of ${listing.documents.length} documents could not be read`);
  return reasons.length === 0 ? 'not every listed document was read' : reasons.join('; ');
}

async function readDocument(
  gateway: WorldGateway,
  world: string,
  path: string,
  signal: AbortSignal,
): Promise<(DoctorDocument & { bytes: number }) | undefined> {
  try {
    const response = await gateway.read(world, { verb: 'FETCH', path, signal });
    if (response.status !== Status.Ok) return undefined;
    const { etag: _etag, ...metadata } = response.metadata;
    const hash = `sha256-${createHash('sha256').update(response.body).digest('hex')}`;
    return { world, path, body: utf8.decode(response.body), metadata, hash, bytes: response.body.length };
  } catch {
    return undefined;
  }
}
