import type { CatalogEntry } from './entry.ts';
import type { FilterSubject } from './filter.ts';
import { goFields, goToLower } from '../../protocol/go-strings.ts';
import { compareCodePoints, foldKey } from './go-text.ts';

/**
 * A catalogued document as the indexes see it: the entry plus what matching
 * reads on every lookup, computed once at upsert. Never mutated, so the sorted
 * lists can find it again by comparison.
 */
export interface CatalogDoc extends FilterSubject {
  readonly id: number;
  readonly path: string;
  readonly importance: number;
  readonly entry: CatalogEntry;
  /** Distinct EqualFold keys of the tags, for the tag index and `tag=` filters. */
  readonly foldedTags: readonly string[];
  /** False when the path has no UTF-16 unit ≥ U+D800, so native comparison is already Go's order. */
  readonly pathNeedsCodePointOrder: boolean;
  /** The title as strings.ToLower gives it, for substring matching. */
  readonly lowerTitle: string;
  /** Distinct white-space separated words of the lower-cased title. */
  readonly titleWords: readonly string[];
}

const highUnits = /[\ud800-\uffff]/;

export function prepareDoc(id: number, entry: CatalogEntry): CatalogDoc {
  const lowerTitle = goToLower(entry.title);
  return {
    id,
    path: entry.path,
    importance: entry.importance,
    modifiedMs: entry.modified.getTime(),
    metadata: entry.metadata,
    entry,
    foldedTags: distinct(entry.tags.map(foldKey)),
    pathNeedsCodePointOrder: highUnits.test(entry.path),
    lowerTitle,
    titleWords: distinct(goFields(lowerTitle)),
  };
}

/** Order-keeping de-duplication for the handful of tags or title words a document has. */
function distinct(items: string[]): string[] {
  const out: string[] = [];
  for (const item of items) if (!out.includes(item)) out.push(item);
  return out;
}

/**
 * The order of equally scored rows (Go `catalog/catalog.go`, catalog.better): importance
 * descending, then modified descending, then path ascending in Go's byte order.
 * Paths are unique, so this is a total order.
 */
export function compareRank(a: CatalogDoc, b: CatalogDoc): number {
  if (a.importance !== b.importance) return a.importance > b.importance ? -1 : 1;
  if (a.modifiedMs !== b.modifiedMs) return a.modifiedMs > b.modifiedMs ? -1 : 1;
  return comparePath(a, b);
}

/**
 * Go's byte order of paths. UTF-16 order only disagrees where both strings hold
 * a unit ≥ U+D800 at their first difference, so other pairs compare natively.
 */
export function comparePath(a: CatalogDoc, b: CatalogDoc): number {
  if (a.pathNeedsCodePointOrder && b.pathNeedsCodePointOrder) return compareCodePoints(a.path, b.path);
  return a.path < b.path ? -1 : a.path === b.path ? 0 : 1;
}
