/**
 * Produces LOOKUP matches into a sink in final order (score, importance,
 * modified, path), reading as little of the catalog as the query allows.
 * Every choice below is about cost only; the rows reaching the sink are the
 * ones a linear scan of the spec would give (see the property test).
 *
 * - A score level is produced by enumerating its candidates into a heap, or
 *   by walking the rank order from the top and skipping non-members, which
 *   wins when members are dense and few rows are wanted.
 * - The densest term is not materialised when the walk wins: a document only
 *   it matches scores 1 and is recognised during the walk of level 1.
 * - With several terms that look dense together, the top level is walked
 *   first, scoring documents one by one, under a small budget.
 * - A scope subtree or `tag=` list smaller than all that is scored document
 *   by document instead.
 */
import type { CatalogIndex } from './catalog-index.ts';
import { compareRank } from './doc.ts';
import type { CatalogDoc } from './doc.ts';
import { acceptor, narrowestSource, preferEnumerate, walkSteps } from './lookup-sources.ts';
import type { LookupPlan, Source } from './lookup-sources.ts';
import { drainInOrder } from './ordered-drain.ts';
import type { ResultSink } from './result-sink.ts';
import type { ScoreBoard } from './score-board.ts';
import { TermMatcher, scoreDoc } from './term-matcher.ts';

/** `*` (Go `catalog/catalog.go`): every accepted document, score 0, in rank order. */
export function produceMatchAll(index: CatalogIndex, plan: LookupPlan, sink: ResultSink): void {
  const accepts = acceptor(plan);
  const source = narrowestSource(index, plan);
  if (source !== null && preferEnumerate(source.size, sink.wanted, index.size)) {
    const docs: CatalogDoc[] = [];
    source.forEach((doc) => {
      if (accepts(doc)) docs.push(doc);
    });
    drainInOrder(docs, compareRank, (doc) => sink.offer(doc, 0));
    return;
  }
  index.order.forEachFrom(null, (doc) => !accepts(doc) || sink.offer(doc, 0));
}

/** Terms (Go `catalog/catalog.go`): documents matching at least one, by score, then rank. */
export function produceTermMatches(
  index: CatalogIndex,
  board: ScoreBoard,
  terms: readonly string[],
  plan: LookupPlan,
  sink: ResultSink,
): void {
  const matchers = terms.map((term) => new TermMatcher(index, term)).sort((a, b) => a.size - b.size);
  const largest = matchers[matchers.length - 1]!;
  if (largest.size === 0) return;
  const accepts = acceptor(plan);
  const source = narrowestSource(index, plan);
  const selectivity = source === null ? 1 : source.size / Math.max(index.size, 1);
  const lazyLargest = !preferEnumerate(largest.size, sink.wanted, index.size, selectivity);
  const boarded = lazyLargest ? matchers.slice(0, -1) : matchers;
  const boardSteps =
    boarded.reduce((sum, m) => sum + m.size, 0) +
    (lazyLargest ? walkSteps(largest.size * selectivity, sink.wanted, index.size) : 0);
  if (source !== null && source.size * matchers.length < boardSteps) {
    scoreSource(source, matchers, accepts, sink);
    return;
  }
  const producedTop =
    matchers.length > 1 ? walkTopLevelFirst(index, matchers, accepts, sink, selectivity, boardSteps) : 0;
  if (sink.done) return;
  scoreOnBoard(index, board, boarded, lazyLargest ? largest : null);
  produceLevels(index, board, matchers.length, accepts, sink, lazyLargest ? largest : null, producedTop);
}

/** Scores each document of a small source directly: no postings are read. */
function scoreSource(
  source: Source,
  matchers: readonly TermMatcher[],
  accepts: (doc: CatalogDoc) => boolean,
  sink: ResultSink,
): void {
  const rows: { doc: CatalogDoc; score: number }[] = [];
  source.forEach((doc) => {
    const score = accepts(doc) ? scoreDoc(doc, matchers) : 0;
    if (score > 0) rows.push({ doc, score });
  });
  drainInOrder(
    rows,
    (a, b) => b.score - a.score || compareRank(a.doc, b.doc),
    (row) => sink.offer(row.doc, row.score),
  );
}

/**
 * When documents matching every term look dense (terms taken as independent),
 * walk the rank order scoring each document directly and emit the full-score
 * ones: usually the limit fills within a few hundred steps and nothing is
 * scored in bulk. The walk gives up after a budget worth a fraction of the
 * bulk scoring it tries to save, so a wrong guess costs little. Returns how
 * many top-score rows it produced, for the bulk path to skip.
 */
function walkTopLevelFirst(
  index: CatalogIndex,
  matchers: readonly TermMatcher[],
  accepts: (doc: CatalogDoc) => boolean,
  sink: ResultSink,
  selectivity: number,
  boardSteps: number,
): number {
  const density = matchers.reduce((product, m) => product * Math.min(1, m.size / Math.max(index.size, 1)), selectivity);
  const budget = boardSteps / (4 * matchers.length);
  if (walkSteps(density * index.size, sink.wanted, index.size) > budget) return 0;
  const top = matchers.length;
  let steps = 0;
  let produced = 0;
  index.order.forEachFrom(null, (doc) => {
    if (++steps > budget) return false;
    if (!accepts(doc) || scoreDoc(doc, matchers) !== top) return true;
    produced++;
    return sink.offer(doc, top);
  });
  return produced;
}

/** Scores the boarded terms' candidates; a lazily handled term is then added for the documents touched. */
function scoreOnBoard(
  index: CatalogIndex,
  board: ScoreBoard,
  boarded: readonly TermMatcher[],
  lazy: TermMatcher | null,
): void {
  board.begin(index.capacity);
  const hit = (doc: CatalogDoc): void => board.hit(doc.id);
  for (const matcher of boarded) {
    board.nextTerm();
    matcher.forEachCandidate(hit);
  }
  if (lazy === null) return;
  board.nextTerm();
  // Testing a document costs a few string searches; reading a posting, one lookup.
  if (lazy.size < 8 * board.touched.length) lazy.forEachCandidate((doc) => board.hitIfTouched(doc.id));
  else for (const id of board.touched.slice()) if (lazy.matches(index.doc(id))) board.hit(id);
}

/**
 * Score levels from the top. Touched documents carry exact scores; with a lazy
 * term, an untouched document can only score 1, by that term, so level 1 is
 * walked and each such document recognised on the way.
 */
function produceLevels(
  index: CatalogIndex,
  board: ScoreBoard,
  termCount: number,
  accepts: (doc: CatalogDoc) => boolean,
  sink: ResultSink,
  lazy: TermMatcher | null,
  producedTop: number,
): void {
  const counts = new Array<number>(termCount + 1).fill(0);
  for (const id of board.touched) counts[board.score(id)]!++;
  for (let score = termCount; score >= 1 && !sink.done; score--) {
    const walkLazily = lazy !== null && score === 1;
    if (counts[score] === 0 && !walkLazily) continue;
    // Both ways yield a level in rank order, so rows already produced are its first ones.
    let skip = score === termCount ? producedTop : 0;
    const emit = (doc: CatalogDoc): boolean => {
      if (skip > 0) {
        skip--;
        return true;
      }
      return sink.offer(doc, score);
    };
    if (!walkLazily && preferEnumerate(counts[score]!, sink.wanted + skip, index.size)) {
      const docs: CatalogDoc[] = [];
      for (const id of board.touched) if (board.score(id) === score) docs.push(index.doc(id));
      drainInOrder(docs.filter(accepts), compareRank, emit);
      continue;
    }
    const scoreOf = walkLazily
      ? (doc: CatalogDoc) => board.score(doc.id) || (lazy.matches(doc) ? 1 : 0)
      : (doc: CatalogDoc) => board.score(doc.id);
    index.order.forEachFrom(null, (doc) => scoreOf(doc) !== score || !accepts(doc) || emit(doc));
  }
}
