/**
 * One tokenless LIST of a folder instead of one read check per document in it,
 * for graph answers (read-check.ts). A world applies read-auth to every LIST
 * entry on the entry's own path and hides the entries a caller may not read
 * (src/world/handler/list.ts `readPage`, Mark SPEC §6.2 "Read-auth is applied
 * per entry"), the same rule a FETCH of that path passes
 * (src/world/handler/read-auth.ts). So a document a tokenless LIST names is
 * one a tokenless FETCH may read. The converse does not hold: LIST also leaves
 * out dot-files, the `versions` folder, files without history and (unless
 * asked) archived documents, and a refused or failed LIST says nothing of its
 * entries. Only "listed" is a verdict here; everything else is left to the
 * per-document check.
 */
import { maxListPageEntries } from '../../protocol/limits.ts';
import { parseList } from '../../protocol/render/list.ts';
import { Status } from '../../protocol/status.ts';
import type { WorldGateway } from '../worlds/gateway.ts';

/** Requests one answer may still send, shared by its LIST pages and its per-document checks. */
export class CheckBudget {
  #left: number;
  constructor(requests: number) {
    this.#left = requests;
  }
  get left(): number {
    return this.#left;
  }
  /** Spends one request, or says there is none left. */
  take(): boolean {
    if (this.#left <= 0) return false;
    this.#left--;
    return true;
  }
}

/**
 * The paths of `wanted` (documents of `folder`, a path ending in `/`) that a
 * tokenless LIST of `folder` names as documents. Pages are read while they
 * can still pay: another page is asked only while fewer pages were sent than
 * wanted documents remain unlisted, so a folder never costs more than twice
 * its per-document checks, and only while `budget` allows.
 */
export async function listedReadable(
  reader: WorldGateway,
  world: string,
  folder: string,
  wanted: ReadonlySet<string>,
  budget: CheckBudget,
  signal?: AbortSignal,
): Promise<Set<string>> {
  const listed = new Set<string>();
  const seenCursors = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    if (pages >= wanted.size - listed.size || !budget.take()) break;
    pages++;
    const response = await reader.read(world, {
      verb: 'LIST',
      path: folder,
      metadata: {
        'page-size': String(maxListPageEntries),
        // An archived document answers the probe `archived`, which shows it: list it too.
        'include-archived': 'true',
        ...(cursor === null ? {} : { cursor }),
      },
      ...(signal ? { signal } : {}),
    });
    if (response.status !== Status.Ok) break;
    const page = parseList(folder, new TextDecoder().decode(response.body), response.metadata);
    for (const entry of page.entries) {
      if (entry.kind === 'document' && wanted.has(entry.path)) listed.add(entry.path);
    }
    cursor = page.nextCursor;
    if (cursor !== null && seenCursors.has(cursor)) break;
    if (cursor !== null) seenCursors.add(cursor);
  } while (cursor !== null && listed.size < wanted.size);
  return listed;
}
