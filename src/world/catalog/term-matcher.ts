import type { CatalogIndex } from './catalog-index.ts';
import type { CatalogDoc } from './doc.ts';
import type { PostingList } from './doc-postings.ts';
import { foldKey } from './go-text.ts';

/**
 * One query term against the catalog (Go `catalog/catalog.go`): a document matches when
 * a tag equals the term under EqualFold or its lower-cased title contains it.
 * Knows its candidates (tag postings plus the postings of every title word
 * holding the term) and can also test a single document without them.
 */
export class TermMatcher {
  readonly term: string;
  readonly folded: string;
  /** Candidate count, an upper bound: a document may sit in several postings. */
  readonly size: number;
  readonly #postings: PostingList[] = [];

  constructor(index: CatalogIndex, term: string) {
    this.term = term;
    this.folded = foldKey(term);
    const tagged = index.tags.get(this.folded);
    if (tagged !== undefined) this.#postings.push(tagged);
    index.titles.forEachMatch(term, (documents) => this.#postings.push(documents));
    this.size = this.#postings.reduce((sum, list) => sum + list.size, 0);
  }

  matches(doc: CatalogDoc): boolean {
    return doc.foldedTags.includes(this.folded) || doc.lowerTitle.includes(this.term);
  }

  forEachCandidate(visit: (doc: CatalogDoc) => void): void {
    for (const list of this.#postings) list.forEach(visit);
  }
}

/** catalog.matchScore: the number of terms a document matches. */
export function scoreDoc(doc: CatalogDoc, matchers: readonly TermMatcher[]): number {
  let score = 0;
  for (const matcher of matchers) if (matcher.matches(doc)) score++;
  return score;
}
