/**
 * Phase one of a query term: find every document and section that holds it.
 *
 * As spexcode's `ranker.ts`: matching is on word boundaries, never raw substring.
 * Name words (title, basename, tags) match forward only: the word starts with the
 * term's stem. Description and body words also match in reverse: a document word of
 * 3+ letters that is a prefix of the unstemmed term (`search` for `searches`).
 */
import type { IndexState } from './index-state.ts';
import type { QueryTerm } from './query-terms.ts';
import { DocFlag } from './scratch.ts';
import type { TermScratch } from './scratch.ts';
import { inPieces, type Sliced, type WorkMeter } from './slices.ts';
import { bodyLow, bodySection, fieldBits, fieldDoc, FieldBit, maxPackedTf, trailFlag } from './vocabulary.ts';
import type { WordEntry } from './vocabulary.ts';

const minReverseWord = 3;
const nameBits = FieldBit.title | FieldBit.name | FieldBit.tag;
/** Go `bodymatch.go` "the doc's tags and title": the basename is ranked, not matched. */
const catalogBits = FieldBit.title | FieldBit.tag;

export interface Expansion {
  forward: WordEntry[];
  reverse: WordEntry[];
}

export function expand(state: IndexState, term: QueryTerm): Expansion {
  const live = (e: WordEntry | undefined): e is WordEntry => e !== undefined && e.df > 0;
  if (!term.expands) return { forward: [state.vocab.get(term.text)].filter(live), reverse: [] };
  const forward = state.vocab.withPrefix(term.stem);
  const reverse: WordEntry[] = [];
  for (let k = minReverseWord; k < term.text.length; k++) {
    const prefix = term.text.slice(0, k);
    if (prefix.startsWith(term.stem)) break;
    const entry = state.vocab.get(prefix);
    if (live(entry)) reverse.push(entry);
  }
  return { forward, reverse };
}

/**
 * Fills `scratch` with the term's per-section and per-document evidence, yielding
 * between pieces of postings (slices.ts): a frequent word has one per section.
 */
export function* gatherTerm(state: IndexState, term: QueryTerm, scratch: TermScratch, meter: WorkMeter): Sliced<void> {
  const { forward, reverse } = expand(state, term);
  for (const entry of forward) {
    const cover = coverage(term, entry.word);
    yield* inPieces(entry.body.length, meter, (from, to) => gatherBody(state, entry, scratch, from, to));
    yield* inPieces(entry.fields.length, meter, (from, to) => gatherFields(state, entry, scratch, cover, from, to));
  }
  for (const entry of reverse) {
    yield* inPieces(entry.body.length, meter, (from, to) => gatherBody(state, entry, scratch, from, to));
    yield* inPieces(entry.fields.length, meter, (from, to) => gatherFields(state, entry, scratch, 0, from, to));
  }
}

/**
 * Name-prefix coverage (spexcode `nameCover`): the share of the name word the query
 * covers. Measured with the longer of the stem and the typed term's common prefix,
 * so stemming never lowers an exact match (`crossing` covers `crossing` fully).
 */
function coverage(term: QueryTerm, word: string): number {
  let common = 0;
  while (common < term.text.length && common < word.length && term.text[common] === word[common]) common++;
  return Math.max(term.stem.length, common) / word.length;
}

/** Body postings [from, to) of `entry`. */
function gatherBody(state: IndexState, entry: WordEntry, scratch: TermScratch, from: number, to: number): void {
  const postings = entry.body;
  for (let i = from; i < to; i++) {
    const packed = postings[i] as number;
    const section = bodySection(packed);
    const doc = state.sectionDoc[section] ?? -1;
    if (doc < 0) continue;
    const low = bodyLow(packed);
    const tf = low & maxPackedTf;
    if (scratch.sectionTf[section] === 0 && scratch.sectionTrail[section] === 0) scratch.sections.push(section);
    scratch.sectionTf[section] = (scratch.sectionTf[section] ?? 0) + tf;
    if (low & trailFlag) scratch.sectionTrail[section] = 1;
    scratch.touchDoc(doc);
    scratch.bodyTf[doc] = (scratch.bodyTf[doc] ?? 0) + tf;
  }
}

/** Field postings [from, to); `cover` is stem length / word length for a forward match, 0 for a reverse one. */
function gatherFields(
  state: IndexState,
  entry: WordEntry,
  scratch: TermScratch,
  cover: number,
  from: number,
  to: number,
): void {
  const postings = entry.fields;
  for (let i = from; i < to; i++) {
    const packed = postings[i] as number;
    const doc = fieldDoc(packed);
    if (state.docs[doc] === undefined) continue;
    const bits = fieldBits(packed);
    let flags = 0;
    if (cover > 0 && bits & nameBits) {
      scratch.cover[doc] = Math.max(scratch.cover[doc] ?? 0, cover);
      if (bits & catalogBits) flags |= DocFlag.catalog;
    }
    if (bits & FieldBit.description) flags |= DocFlag.description;
    if (flags === 0 && !(cover > 0 && bits & nameBits)) continue;
    scratch.touchDoc(doc);
    scratch.flags[doc] = (scratch.flags[doc] ?? 0) | flags;
  }
}
