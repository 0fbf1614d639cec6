import type { CatalogDoc } from './doc.ts';
import { DocPostings } from './doc-postings.ts';
import type { PostingList } from './doc-postings.ts';
import { Postings } from './postings.ts';

/**
 * Finds the documents whose lower-cased title contains a term (Go `catalog/catalog.go`).
 *
 * A term never holds white space (lookupTerms splits on it, with the same
 * unicode.IsSpace set used here), so it is a substring of a title exactly when
 * it is a substring of one of the title's words. The index therefore keeps
 * word → documents, plus bigram and trigram → word over the vocabulary, which
 * is far smaller than the catalog: a term's candidate words come from its
 * n-grams and are verified with `includes`.
 */
export class TitleIndex {
  readonly #documents: DocPostings;
  readonly #bigrams = new Postings<string>();
  readonly #trigrams = new Postings<string>();

  constructor(isLive: (doc: CatalogDoc) => boolean) {
    this.#documents = new DocPostings(isLive);
  }

  add(doc: CatalogDoc): void {
    for (const word of doc.titleWords) {
      if (this.#documents.add(word, doc)) this.#indexWord(word);
    }
  }

  /** Call after `doc` stopped being live. */
  release(doc: CatalogDoc): void {
    for (const word of doc.titleWords) {
      if (this.#documents.release(word)) this.#unindexWord(word);
    }
  }

  /** Calls `visit` with the documents of every vocabulary word that contains `term`. */
  forEachMatch(term: string, visit: (documents: PostingList) => void): void {
    for (const word of this.#wordsContaining(term)) {
      const documents = this.#documents.get(word);
      if (documents !== undefined) visit(documents);
    }
  }

  #wordsContaining(term: string): Iterable<string> {
    if (term.length === 1) return [...this.#documents.keys()].filter((word) => word.includes(term));
    if (term.length === 2) return this.#bigrams.get(term) ?? [];
    const sets: ReadonlySet<string>[] = [];
    for (const gram of grams(term, 3)) {
      const set = this.#trigrams.get(gram);
      if (set === undefined) return [];
      sets.push(set);
    }
    sets.sort((a, b) => a.size - b.size);
    const [smallest, ...others] = sets as [ReadonlySet<string>, ...ReadonlySet<string>[]];
    const words: string[] = [];
    for (const word of smallest) {
      if (others.every((set) => set.has(word)) && word.includes(term)) words.push(word);
    }
    return words;
  }

  #indexWord(word: string): void {
    for (const gram of grams(word, 2)) this.#bigrams.add(gram, word);
    for (const gram of grams(word, 3)) this.#trigrams.add(gram, word);
  }

  #unindexWord(word: string): void {
    for (const gram of grams(word, 2)) this.#bigrams.delete(gram, word);
    for (const gram of grams(word, 3)) this.#trigrams.delete(gram, word);
  }
}

/** The distinct n-grams of `text`, in UTF-16 code units (containment is the same as in code points). */
function grams(text: string, n: number): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + n <= text.length; i++) out.add(text.slice(i, i + n));
  return out;
}
