import { compareRank, comparePath, prepareDoc } from './doc.ts';
import type { CatalogDoc } from './doc.ts';
import type { CatalogEntry } from './entry.ts';
import { compareCodePoints } from './go-text.ts';
import { DocPostings } from './doc-postings.ts';
import { SortedList } from './sorted-list.ts';
import { TitleIndex } from './title-index.ts';

/**
 * The catalog's storage: one slot per document and the indexes a lookup plans
 * with. Each document's upsert or removal touches only its own postings and
 * one block of each sorted list.
 *
 * - `order`: every document by rank (importance, modified, path), so `*` reads
 *   its top rows without sorting;
 * - `paths`: every document by path, so a scope is one contiguous range;
 * - `tags`: EqualFold key → documents;
 * - `titles`: title words and their n-grams (see TitleIndex).
 */
export class CatalogIndex {
  readonly order: SortedList<CatalogDoc>;
  readonly paths: SortedList<CatalogDoc>;
  readonly tags: DocPostings;
  readonly titles: TitleIndex;
  readonly #slots: (CatalogDoc | undefined)[] = [];
  readonly #freeIds: number[] = [];
  readonly #byPath = new Map<string, CatalogDoc>();

  /** Bulk start-up load: later entries for a path win, and each list is sorted once. */
  constructor(entries: Iterable<CatalogEntry> = []) {
    const isLive = (doc: CatalogDoc): boolean => this.#slots[doc.id] === doc;
    this.tags = new DocPostings(isLive);
    this.titles = new TitleIndex(isLive);
    for (const entry of entries) {
      const previous = this.#byPath.get(entry.path);
      if (previous !== undefined) this.#unindex(previous);
      this.#index(entry);
    }
    const docs = [...this.#byPath.values()];
    this.order = new SortedList(compareRank, docs.slice().sort(compareRank));
    this.paths = new SortedList(comparePath, this.#sortedByPath(docs));
  }

  get size(): number {
    return this.#byPath.size;
  }

  /** One past the highest document id, for per-id scratch arrays. */
  get capacity(): number {
    return this.#slots.length;
  }

  get(path: string): CatalogDoc | undefined {
    return this.#byPath.get(path);
  }

  doc(id: number): CatalogDoc {
    const doc = this.#slots[id];
    if (doc === undefined) throw new Error(`catalog: no document with id ${id}`);
    return doc;
  }

  docs(): IterableIterator<CatalogDoc> {
    return this.#byPath.values();
  }

  upsert(entry: CatalogEntry): void {
    this.remove(entry.path);
    const doc = this.#index(entry);
    this.order.insert(doc);
    this.paths.insert(doc);
  }

  remove(path: string): boolean {
    const doc = this.#byPath.get(path);
    if (doc === undefined) return false;
    this.#unindex(doc);
    this.order.remove(doc);
    this.paths.remove(doc);
    return true;
  }

  /** Documents under a normalized scope other than `/`: the scope itself and the range [scope/, scope0). */
  scopeSize(scope: string): number {
    const low = `${scope}/`;
    const high = `${scope}0`;
    const inRange =
      this.paths.countBefore((doc) => compareCodePoints(doc.path, high) < 0) -
      this.paths.countBefore((doc) => compareCodePoints(doc.path, low) < 0);
    return inRange + (this.#byPath.has(scope) ? 1 : 0);
  }

  forEachInScope(scope: string, visit: (doc: CatalogDoc) => void): void {
    const exact = this.#byPath.get(scope);
    if (exact !== undefined) visit(exact);
    const low = `${scope}/`;
    // The range [scope/, scope0) is exactly the paths that start with scope/.
    this.paths.forEachFrom(
      (doc) => compareCodePoints(doc.path, low) < 0,
      (doc) => {
        if (!doc.path.startsWith(low)) return false;
        visit(doc);
        return true;
      },
    );
  }

  /** The engine's default sort of bare strings is UTF-16 order, Go's order unless paths hold units ≥ U+D800. */
  #sortedByPath(docs: CatalogDoc[]): CatalogDoc[] {
    if (docs.some((doc) => doc.pathNeedsCodePointOrder)) return docs.sort(comparePath);
    return [...this.#byPath.keys()].sort().map((path) => this.#byPath.get(path)!);
  }

  #index(entry: CatalogEntry): CatalogDoc {
    const id = this.#freeIds.pop() ?? this.#slots.length;
    const doc = prepareDoc(id, entry);
    this.#slots[id] = doc;
    this.#byPath.set(doc.path, doc);
    for (const tag of doc.foldedTags) this.tags.add(tag, doc);
    this.titles.add(doc);
    return doc;
  }

  #unindex(doc: CatalogDoc): void {
    this.#byPath.delete(doc.path);
    this.#slots[doc.id] = undefined;
    this.#freeIds.push(doc.id);
    for (const tag of doc.foldedTags) this.tags.release(tag);
    this.titles.release(doc);
  }
}
