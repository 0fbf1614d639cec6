import { maxListPageEntries } from '../../../protocol/limits.ts';
import type { WorldGateway } from '../../worlds/gateway.ts';
import { runPool } from '../work-pool.ts';
import { parseListPage, type ListPage } from './list-page.ts';

/**
 * Every document path of a world, by paginated LIST from `/` (the walk
 * mark_index does, go-broker-inventory §4.3): page size 1000, a cursor must
 * advance, at most `maxLists` LISTs, `maxDepth` directory levels and
 * `maxDocuments` paths. Anything skipped (a failed LIST, an invalid entry, a
 * bound) makes the walk incomplete, and the reasons are kept.
 */
export type WalkLimits = { maxDocuments: number; maxLists: number; maxDepth: number; workers: number };

export type WorldListing = { documents: string[]; complete: boolean; problems: string[] };

export async function walkWorld(
  gateway: WorldGateway,
  world: string,
  limits: WalkLimits,
  options: { exclude?: (path: string) => boolean; signal?: AbortSignal } = {},
): Promise<WorldListing> {
  const documents: string[] = [];
  const problems: string[] = [];
  const queue: Array<{ dir: string; depth: number }> = [{ dir: '/', depth: 0 }];
  const visited = new Set<string>(['/']);
  let lists = 0;
  const listDir = async ({ dir, depth }: { dir: string; depth: number }) => {
    let cursor: string | null = null;
    const seenCursors = new Set<string>();
    do {
      if (lists >= limits.maxLists) return void problems.push(`${dir}: LIST bound of ${limits.maxLists} reached`);
      lists++;
      let page: ListPage;
      try {
        const response = await gateway.read(world, {
          verb: 'LIST',
          path: dir,
          metadata: { 'page-size': String(maxListPageEntries), ...(cursor === null ? {} : { cursor }) },
          ...(options.signal ? { signal: options.signal } : {}),
        });
        page = parseListPage(dir, response);
      } catch (error) {
        return void problems.push(`${dir}: ${error instanceof Error ? error.message : String(error)}`);
      }
      for (const dest of page.invalid) problems.push(`${dir}: invalid entry ${dest}`);
      for (const entry of page.entries) {
        if (options.exclude?.(entry.path)) continue;
        if (!entry.directory) {
          if (documents.length >= limits.maxDocuments)
            return void problems.push(`document bound of ${limits.maxDocuments} reached`);
          documents.push(entry.path);
        } else if (depth + 1 > limits.maxDepth)
          problems.push(`${entry.path}/: depth bound of ${limits.maxDepth} reached`);
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
  };
  await runPool(queue, listDir, { workers: limits.workers, ...(options.signal ? { signal: options.signal } : {}) });
  if (options.signal?.aborted) problems.push('walk aborted');
  return { documents: documents.sort(), complete: problems.length === 0, problems };
}
