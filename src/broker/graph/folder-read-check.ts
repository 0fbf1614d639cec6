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

/** Whether a request may go: `sent`, or which bound kept it back. */
export type CheckSpend = 'sent' | 'answer-bound' | 'world-budget';

/**
 * Requests one answer may still send, shared by its LIST pages and its
 * per-document checks, each also paid from its world's budget (`worldAllows`,
 * shared by every caller: read-check.ts `readCheckBudgetPerWorld`).
 */
export class CheckBudget {
  #left: number;
  readonly #worldAllows: (world: string) => boolean;
  constructor(requests: number, worldAllows: (world: string) => boolean = () => true) {
    this.#left = requests;
    this.#worldAllows = worldAllows;
  }
  get left(): number {
    return this.#left;
  }
  /** Spends one request to `world`, or says which bound is spent (a refusal spends neither). */
  take(world: string): CheckSpend {
    if (this.#left <= 0) return 'answer-bound';
    if (!this.#worldAllows(world)) return 'world-budget';
    this.#left--;
    return 'sent';
  }
}

/**
 * The paths of `wanted` (documents of `folder`, a path ending in `/`) that a
 * tokenless LIST of `folder` names as documents. Pages are read while they
 * can still pay: another page is asked only while fewer pages were sent than
 * wanted documents remain unlisted, so a folder never costs more than twice
 * its per-document checks, and only while `budget` allows (the answer's and
 * the world's).
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
    if (pages >= wanted.size - listed.size || budget.take(world) !== 'sent') break;
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
