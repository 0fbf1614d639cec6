import { SearchIndex, type SearchRow } from '../search/index.ts';
import { baseName } from '../protocol/paths.ts';
import type { LookupRow } from '../protocol/render/lookup.ts';
import { isUnderScope, matchesFilter, type Catalog, type Predicate } from './catalog/index.ts';
import type { DocState } from './store/index.ts';

export type BodySearchOptions = {
  scope: string;
  filter: readonly Predicate[];
  /** Read-auth per row, asked before the limit. */
  allow: (path: string) => boolean;
  limit: number;
};

/**
 * LOOKUP `match: body` (reference §6.4) over the lexical ranker in src/search:
 * section rows `path#anchor` titled `Doc › Heading`, or one bare-path row when
 * tags and title alone carry every term. Titles, tags and filters come from the
 * catalog entry, so both LOOKUP modes agree on what a document is called.
 * Kept current from the same change feed as the catalog.
 */
export class BodyIndex {
  readonly #index = new SearchIndex();
  readonly #catalog: Catalog;

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  /** Call after the catalog has taken the same document. */
  upsert(doc: DocState): void {
    const entry = this.#catalog.get(doc.path);
    if (entry === undefined) return this.remove(doc.path);
    const description = doc.current.metadata['description'];
    this.#index.upsert({
      id: doc.path,
      title: entry.title,
      name: baseName(doc.path),
      ...(description ? { description } : {}),
      tags: [...entry.tags],
      importance: entry.importance,
      body: Buffer.from(doc.current.body).toString(),
    });
  }

  remove(path: string): void {
    this.#index.remove(path);
  }

  search(query: string, options: BodySearchOptions): LookupRow[] {
    const admitted = (path: string) => {
      const entry = this.#catalog.get(path);
      return entry !== undefined && isUnderScope(path, options.scope) && matchesFilter(entry, options.filter) && options.allow(path);
    };
    return this.#index.search(query, { limit: options.limit, mode: 'all', allow: admitted }).map((row) => this.#toLookupRow(row));
  }

  #toLookupRow(row: SearchRow): LookupRow {
    const entry = this.#catalog.get(row.id);
    return {
      path: row.id,
      ...(row.anchor ? { anchor: row.anchor } : {}),
      importance: entry?.importance ?? 0.5,
      title: row.heading ? `${row.docTitle} › ${row.heading}` : row.docTitle,
      tags: entry?.tags ?? [],
      snippet: row.snippet,
    };
  }
}
