import type { CatalogDoc } from './doc.ts';

/**
 * An inverted index key → documents, as plain arrays of document references:
 * cheap to build in bulk and to scan. A removed or replaced document stays in
 * its lists as a stale reference, recognised by `isLive`, until a list is
 * more than half stale and is compacted, so removal is amortised O(1) per key
 * and touches only the document's own lists.
 */
export class DocPostings {
  readonly #lists = new Map<string, PostingList>();
  readonly #isLive: (doc: CatalogDoc) => boolean;

  constructor(isLive: (doc: CatalogDoc) => boolean) {
    this.#isLive = isLive;
  }

  /** True when `key` was new, so callers can index the key itself. */
  add(key: string, doc: CatalogDoc): boolean {
    const list = this.#lists.get(key);
    if (list !== undefined) {
      list.push(doc);
      return false;
    }
    this.#lists.set(key, new PostingList(doc, this.#isLive));
    return true;
  }

  /** Call once per key of a document that stopped being live. True when `key` lost its last live document and is gone. */
  release(key: string): boolean {
    const list = this.#lists.get(key);
    if (list === undefined) return false;
    list.markStale();
    if (list.size > 0) return false;
    this.#lists.delete(key);
    return true;
  }

  get(key: string): PostingList | undefined {
    return this.#lists.get(key);
  }

  keys(): IterableIterator<string> {
    return this.#lists.keys();
  }
}

export class PostingList {
  #docs: CatalogDoc[];
  readonly #isLive: (doc: CatalogDoc) => boolean;
  #stale = 0;

  constructor(first: CatalogDoc, isLive: (doc: CatalogDoc) => boolean) {
    this.#docs = [first];
    this.#isLive = isLive;
  }

  /** Live documents. */
  get size(): number {
    return this.#docs.length - this.#stale;
  }

  push(doc: CatalogDoc): void {
    this.#docs.push(doc);
  }

  forEach(visit: (doc: CatalogDoc) => void): void {
    if (this.#stale === 0) {
      for (const doc of this.#docs) visit(doc);
      return;
    }
    const isLive = this.#isLive;
    for (const doc of this.#docs) if (isLive(doc)) visit(doc);
  }

  /** One of the references went stale; compacts once more than half are. */
  markStale(): void {
    this.#stale++;
    if (this.#stale * 2 <= this.#docs.length) return;
    this.#docs = this.#docs.filter(this.#isLive);
    this.#stale = 0;
  }
}
