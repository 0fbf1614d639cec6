/**
 * Query evaluation: gather each term, score it, and apply the match rule.
 *
 * A term's contribution to a row is min(ceiling, idf × best tier) (spexcode
 * `ranker.ts`). Document tiers (name, description, whole body) apply to every row
 * of the document; section tiers (section text, heading trail) only to sections
 * holding the term. So a row scores docScore + Σ extra, where `extra` is what the
 * section adds over its document for the terms it holds, plus `sectionFocus` × the
 * section's own score for them: terms that meet in one section outrank terms spread
 * over a long document (the retrieval benchmark's single-sentence cases).
 */
import type { DocRecord } from './doc-record.ts';
import { gatherTerm } from './gather.ts';
import type { IndexState } from './index-state.ts';
import type { QueryTerm } from './query-terms.ts';
import { DocFlag, DocState, type QueryScratch } from './scratch.ts';
import { bm25, bm25tf, inverseDocumentFrequency, weights } from './scoring.ts';
import { inPieces, WorkMeter, type Sliced } from './slices.ts';
import { dfOf, fieldAverages } from './stats.ts';
import type { FieldAverages } from './stats.ts';
import type { MatchMode, QueryStats } from './types.ts';

/** Receives each row the match rule admits: the document, section index (-1: bare path), score. */
export type RowSink = (doc: DocRecord, section: number, score: number) => void;

export interface EvaluateInput {
  terms: QueryTerm[];
  mode: MatchMode;
  scope?: (id: string) => boolean;
  globalStats?: QueryStats;
}

/**
 * Yields between pieces of work (slices.ts); `scratch` is this query's alone
 * while it runs (SearchIndex lends one per query), and is reset at the end,
 * also when the query is stopped part way.
 */
export function* evaluate(state: IndexState, scratch: QueryScratch, input: EvaluateInput, sink: RowSink): Sliced<void> {
  const { terms, globalStats } = input;
  if (terms.length === 0) return;
  const totals = globalStats?.totals ?? state.totals;
  const averages = fieldAverages(totals);
  const meter = new WorkMeter();
  try {
    for (const [i, term] of terms.entries()) {
      yield* gatherTerm(state, term, scratch.term, meter);
      // SearchIndex.search gives supplied statistics a df for every term it may not count over hidden documents.
      const df = (globalStats && dfOf(globalStats.df, term.text)) ?? scratch.term.docs.length;
      yield* scoreTerm(state, scratch, averages, inverseDocumentFrequency(totals.docCount, df), 1 << i, meter);
      scratch.term.reset();
    }
    yield* emitRows(state, scratch, input, sink, meter);
  } finally {
    scratch.reset();
  }
}

/** Local df per term, for the first phase of a cross-world merge. */
export function* documentFrequencies(
  state: IndexState,
  scratch: QueryScratch,
  terms: QueryTerm[],
  admitted?: (docNum: number) => boolean,
): Sliced<Record<string, number>> {
  // No prototype: a term such as `__proto__` is an ordinary key here.
  const df = Object.create(null) as Record<string, number>;
  const meter = new WorkMeter();
  try {
    for (const term of terms) {
      yield* gatherTerm(state, term, scratch.term, meter);
      df[term.text] = admitted === undefined ? scratch.term.docs.length : scratch.term.docs.filter(admitted).length;
      scratch.term.reset();
    }
  } finally {
    scratch.reset();
  }
  return df;
}

function* scoreTerm(
  state: IndexState,
  q: QueryScratch,
  avg: FieldAverages,
  idf: number,
  bit: number,
  meter: WorkMeter,
): Sliced<void> {
  yield* inPieces(q.term.docs.length, meter, (from, to) => scoreDocs(state, q, avg, idf, bit, from, to));
  yield* inPieces(q.term.sections.length, meter, (from, to) => scoreSections(state, q, avg, idf, bit, from, to));
}

/** The term's tiers for the documents t.docs[from, to) it touched. */
function scoreDocs(
  state: IndexState,
  q: QueryScratch,
  avg: FieldAverages,
  idf: number,
  bit: number,
  from: number,
  to: number,
): void {
  const t = q.term;
  for (let i = from; i < to; i++) {
    const doc = t.docs[i] as number;
    const record = state.docs[doc] as DocRecord;
    const cover = t.cover[doc] ?? 0;
    const flags = t.flags[doc] ?? 0;
    const nameTier = cover > 0 ? weights.namePrefix * Math.max(weights.nameCoverFloor, cover) : 0;
    const descTier =
      flags & DocFlag.description ? weights.description * bm25tf(1, record.descriptionLength, avg.description) : 0;
    const bodyTier = weights.body * bm25tf(t.bodyTf[doc] ?? 0, record.bodyLength, avg.body, bm25.textB);
    const tier = Math.max(nameTier, descTier, bodyTier);
    const contribution = Math.min(weights.termCeiling, idf * tier);
    t.tier[doc] = tier;
    t.contribution[doc] = contribution;
    q.docScore[doc] = (q.docScore[doc] ?? 0) + contribution;
    if (q.docState[doc] === DocState.unseen) {
      q.docState[doc] = DocState.seen;
      q.docs.push(doc);
    }
    if (flags & DocFlag.catalog) q.catalogMask[doc] = (q.catalogMask[doc] ?? 0) | bit;
  }
}

/** What the term adds to the sections t.sections[from, to) holding it, over their documents. */
function scoreSections(
  state: IndexState,
  q: QueryScratch,
  avg: FieldAverages,
  idf: number,
  bit: number,
  from: number,
  to: number,
): void {
  const t = q.term;
  for (let i = from; i < to; i++) {
    const section = t.sections[i] as number;
    const doc = state.sectionDoc[section] ?? 0;
    const textTier =
      weights.section * bm25tf(t.sectionTf[section] ?? 0, state.sectionLength[section] ?? 0, avg.section, bm25.textB);
    const trailTier = t.sectionTrail[section]
      ? weights.trail * bm25tf(1, state.sectionTrailLength[section] ?? 0, avg.trail)
      : 0;
    const sectionTier = Math.max(textTier, trailTier);
    const best = Math.min(weights.termCeiling, idf * Math.max(t.tier[doc] ?? 0, sectionTier));
    const focus = weights.sectionFocus * Math.min(weights.termCeiling, idf * sectionTier);
    q.sectionExtra[section] = (q.sectionExtra[section] ?? 0) + best - (t.contribution[doc] ?? 0) + focus;
    if (q.sectionMask[section] === 0) q.sections.push(section);
    q.sectionMask[section] = (q.sectionMask[section] ?? 0) | bit;
  }
}

/**
 * Go `bodymatch.go` match rule. If the doc's tags and title hold every term: one
 * bare-path row, no section rows. Otherwise a section is a row when every term is in
 * its text, its trail or the tags/title, and at least one is in its text or trail.
 * Mode `any` keeps every section holding a term, and gives a document with evidence
 * only outside its sections (name, description) a bare-path row.
 */
function* emitRows(
  state: IndexState,
  q: QueryScratch,
  input: EvaluateInput,
  sink: RowSink,
  meter: WorkMeter,
): Sliced<void> {
  const full = input.terms.length >= 32 ? 0xffffffff : 2 ** input.terms.length - 1;
  const { scope } = input;
  if (scope !== undefined) {
    yield* inPieces(q.docs.length, meter, (from, to) => {
      for (let i = from; i < to; i++) {
        const doc = q.docs[i] as number;
        if (!scope((state.docs[doc] as DocRecord).id)) q.docState[doc] = DocState.outOfScope;
      }
    });
  }
  yield* inPieces(q.sections.length, meter, (from, to) => {
    for (let i = from; i < to; i++) {
      const section = q.sections[i] as number;
      const doc = state.sectionDoc[section] ?? 0;
      const catalog = q.catalogMask[doc] ?? 0;
      if (q.docState[doc] === DocState.outOfScope || catalog === full) continue;
      if (input.mode === 'all' && ((q.sectionMask[section] ?? 0) | catalog) >>> 0 !== full) continue;
      const record = state.docs[doc] as DocRecord;
      const score = ((q.docScore[doc] ?? 0) + (q.sectionExtra[section] ?? 0)) * record.prior;
      sink(record, section - record.firstSection, score);
      q.docState[doc] = DocState.hasSectionRow;
    }
  });
  yield* inPieces(q.docs.length, meter, (from, to) => {
    for (let i = from; i < to; i++) {
      const doc = q.docs[i] as number;
      const state_ = q.docState[doc];
      const bare = q.catalogMask[doc] === full || (input.mode === 'any' && state_ === DocState.seen);
      if (state_ === DocState.outOfScope || !bare) continue;
      const record = state.docs[doc] as DocRecord;
      sink(record, -1, (q.docScore[doc] ?? 0) * record.prior);
    }
  });
}
