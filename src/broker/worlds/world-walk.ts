import { maxListPageEntries } from '../../protocol/limits.ts';
import { parseList, type ListPage } from '../../protocol/render/list.ts';
import { Status } from '../../protocol/status.ts';
import { runPool } from '../../concurrency/pool.ts';
import type { WorldGateway } from './gateway.ts';

/**
 * Every document path of a world below a directory, by paginated LIST (page
 * size 1000, a cursor must advance), at most `maxLists` LISTs, `maxDepth`
 * directory levels below the root and `maxDocuments` paths. Nothing is
 * skipped silently: a failed LIST, an invalid entry or a reached bound makes
 * the walk incomplete and is named in `problems`. mark_index and the
 * federation crawl both walk worlds this way.
 */
export type WalkLimits = { maxDocuments: number; maxLists: number; maxDepth: number; workers: number };

export type WorldListing = {
  /** Absolute document paths, sorted. */
  documents: string[];
  complete: boolean;
  problems: string[];
  /** The problems that are a bound (documents, LISTs or depth) reached: truncated, not broken. */
  boundsReached: string[];
  /** Directories (`/a/`) whose every LIST page was read without an invalid entry: their children are exactly those listed. */
  fullyListed: ReadonlySet<string>;
  /** Every entry those LISTs named, documents and directories alike (`/a/b.md`, `/a/c`). */
  entries: ReadonlySet<string>;
};

export type WalkOptions = {
  /** Where the walk starts (default `/`); it never leaves this directory. */
  root?: string;
  exclude?: (path: string) => boolean;
  signal?: AbortSignal;
};

/**
 * What a report shows of an incomplete walk: its first problem (a down world's
 * refusal, a LIST status, a bound, each `<dir>: <reason>`) and how many more
 * there were. mark_doctor and mark_index both word an incomplete listing so.
 */
export function firstListingProblem(listing: Pick<WorldListing, 'problems'>): string {
  const [first = 'a listing failed', ...more] = listing.problems;
  return `${first}${more.length === 0 ? '' : ` (+${more.length} more)`}`;
}

export async function walkWorld(
  gateway: WorldGateway,
  world: string,
  limits: WalkLimits,
  options: WalkOptions = {},
): Promise<WorldListing> {
  const root = (options.root ?? '/').replace(/\/?$/, '/');
  const documents: string[] = [];
  const problems: string[] = [];
  const boundsReached: string[] = [];
  const bound = (problem: string) => {
    boundsReached.push(problem);
    problems.push(problem);
  };
  const queue: Array<{ dir: string; depth: number }> = [{ dir: root, depth: 0 }];
  const visited = new Set<string>([root]);
  const fullyListed = new Set<string>();
  const entries = new Set<string>();
  let lists = 0;
  const listDir = async ({ dir, depth }: { dir: string; depth: number }) => {
    let cursor: string | null = null;
    let invalid = false;
    const seenCursors = new Set<string>();
    do {
      if (lists >= limits.maxLists) return bound(`${dir}: LIST bound of ${limits.maxLists} reached`);
      lists++;
      let page: ListPage;
      try {
        const response = await gateway.read(world, {
          verb: 'LIST',
          path: dir,
          metadata: { 'page-size': String(maxListPageEntries), ...(cursor === null ? {} : { cursor }) },
          ...(options.signal ? { signal: options.signal } : {}),
        });
        if (response.status !== Status.Ok) return void problems.push(`${dir}: LIST ${dir}: ${response.status}`);
        page = parseList(dir, new TextDecoder().decode(response.body), response.metadata);
      } catch (error) {
        return void problems.push(`${dir}: ${error instanceof Error ? error.message : String(error)}`);
      }
      for (const dest of page.invalid) problems.push(`${dir}: invalid entry ${dest}`);
      if (page.invalid.length > 0) invalid = true;
      for (const entry of page.entries) {
        entries.add(entry.path);
        if (options.exclude?.(entry.path)) continue;
        if (entry.kind === 'document') {
          if (documents.length >= limits.maxDocuments) return bound(`document bound of ${limits.maxDocuments} reached`);
          documents.push(entry.path);
        } else if (depth + 1 > limits.maxDepth) bound(`${entry.path}/: depth bound of ${limits.maxDepth} reached`);
        else if (!visited.has(entry.path)) {
          visited.add(entry.path);
          queue.push({ dir: `${entry.path}/`, depth: depth + 1 });
        }
      }
      cursor = page.nextCursor;
      if (!page.complete && (cursor === null || seenCursors.has(cursor)))
        return void problems.push(`${dir}: continuation cursor did not advance`);
      if (cursor !== null) seenCursors.add(cursor);
    } while (cursor !== null);
    if (!invalid) fullyListed.add(dir);
  };
  await runPool(queue, listDir, { workers: limits.workers, ...(options.signal ? { signal: options.signal } : {}) });
  if (options.signal?.aborted) problems.push('walk aborted');
  return {
    documents: documents.sort(),
    complete: problems.length === 0,
    problems,
    boundsReached,
    fullyListed,
    entries,
  };
}

/**
 * Whether the walk shows that `path` is not there for its reader: some
 * directory on the way down was fully listed without naming the next step.
 * False when the walk did not get that far (a bound, a failed LIST): then
 * nothing is known.
 */
export function listedAsAbsent(listing: WorldListing, path: string): boolean {
  const segments = path.split('/').filter((segment) => segment !== '');
  let dir = '/';
  for (const segment of segments) {
    if (!listing.fullyListed.has(dir)) return false;
    const child = `${dir}${segment}`;
    if (!listing.entries.has(child)) return true;
    dir = `${child}/`;
  }
  return false;
}
