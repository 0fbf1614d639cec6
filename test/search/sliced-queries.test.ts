/**
 * Queries run in slices (src/search/slices.ts) on one index: a world serves a
 * body LOOKUP in slices, so another LOOKUP can run between two of its slices.
 * Each query must answer what it answers alone. Before each query borrowed
 * scratch of its own, one scratch per index served every query (its arrays
 * reused across calls), and the interleaved queries below came out wrong
 * (checked with SearchIndex lending its one scratch to every query).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSliced, SearchIndex, type SearchDoc, type Sliced } from '../../src/search/index.ts';
import { prng } from '../support/prng.ts';

const vocabulary = Array.from({ length: 60 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`);

/** 400 documents of 6 sections over 60 words, so a word's postings span many slices. */
function corpus(): SearchDoc[] {
  const random = prng(5);
  const pick = () => vocabulary[Math.floor(random() * vocabulary.length)] as string;
  const phrase = (n: number) => Array.from({ length: n }, pick).join(' ');
  return Array.from({ length: 400 }, (_, d) => ({
    id: `/area-${d % 7}/doc-${d}.md`,
    title: phrase(3),
    name: `doc-${d}.md`,
    description: phrase(6),
    tags: [pick()],
    importance: random(),
    body: Array.from({ length: 6 }, (_, s) => `## ${phrase(2)} ${s}\n\n${phrase(25)}.\n${phrase(25)}.`).join('\n\n'),
  }));
}

function indexOf(docs: readonly SearchDoc[]): SearchIndex {
  const index = new SearchIndex();
  for (const doc of docs) index.upsert(doc);
  return index;
}

/** Runs the queries one step each in turn until all are done; their results, and the steps each took. */
function interleave(queries: Sliced<unknown>[]): { results: unknown[]; steps: number[] } {
  const results: unknown[] = queries.map(() => undefined);
  const steps = queries.map(() => 0);
  const running = new Set(queries.keys());
  while (running.size > 0) {
    for (const i of [...running]) {
      const step = (queries[i] as Sliced<unknown>).next();
      steps[i] = (steps[i] as number) + 1;
      if (step.done) {
        results[i] = step.value;
        running.delete(i);
      }
    }
  }
  return { results, steps };
}

const inArea = (area: number) => (id: string) => id.startsWith(`/area-${area}/`);
const relaxed = `${vocabulary.slice(0, 12).join(' ')}`;
const strict = `${vocabulary[20]} ${vocabulary[21]}`;

describe('queries run in slices at once on one index', () => {
  const docs = corpus();

  it('each interleaved search equals its solo result', () => {
    const index = indexOf(docs);
    const a = { limit: 200, mode: 'any' as const, allow: inArea(1) };
    const b = { limit: 50, mode: 'all' as const };
    const soloA = index.search(relaxed, a);
    const soloB = index.search(strict, b);
    assert.ok(soloA.length > 20 && soloB.length > 5, 'the queries find rows');
    const { results, steps } = interleave([index.searchSteps(relaxed, a), index.searchSteps(strict, b)]);
    assert.ok((steps[0] as number) > 3 && (steps[1] as number) > 3, `the queries yield part way: ${steps}`);
    assert.deepEqual(results[0], soloA);
    assert.deepEqual(results[1], soloB);
  });

  it('statistics, a search and nearest titles interleaved each equal their solo result', () => {
    const index = indexOf(docs);
    const admit = inArea(2);
    const soloStats = index.queryStats(relaxed, { admit });
    const soloSearch = index.search(relaxed, { limit: 30, mode: 'any', globalStats: soloStats, allow: admit });
    const soloHelp = index.zeroResultHelp('wrodb1 wordq16x', { limit: 5 });
    assert.ok(soloHelp.nearest.length > 0, 'the miss has nearest titles');
    const { results } = interleave([
      index.queryStatsSteps(relaxed, { admit }),
      index.searchSteps(relaxed, { limit: 30, mode: 'any', globalStats: soloStats, allow: admit }),
      index.zeroResultHelpSteps('wrodb1 wordq16x', { limit: 5 }),
    ]);
    assert.deepEqual(results, [soloStats, soloSearch, soloHelp]);
  });

  it('makes its rows snippets in slices, interleaved snippets each equal to their solo result', () => {
    const index = indexOf(docs);
    // Same postings and documents scored at either limit: only the snippets differ in work.
    const few = { limit: 1, mode: 'any' as const };
    const many = { limit: 400, mode: 'any' as const };
    const stepsOf = (query: string, options: typeof few) => interleave([index.searchSteps(query, options)]).steps[0];
    assert.ok(
      (stepsOf(relaxed, many) as number) > (stepsOf(relaxed, few) as number) + 2,
      `400 snippets yield: ${stepsOf(relaxed, many)} steps against ${stepsOf(relaxed, few)} for one`,
    );
    // Two queries whose snippet phases overlap share the index's run masks (line-words.ts).
    const other = vocabulary.slice(30, 42).join(' ');
    const soloA = index.search(relaxed, many);
    const soloB = index.search(other, many);
    assert.ok(soloA.length === 400 && soloB.length === 400, 'both queries keep 400 rows');
    assert.deepEqual(interleave([index.searchSteps(relaxed, many), index.searchSteps(other, many)]).results, [
      soloA,
      soloB,
    ]);
  });

  it('nearest titles yield over documents hidden from the caller, not only over titles compared', () => {
    const index = indexOf(docs);
    // The caller sees 2 of 400 documents: 398 admit tests, 2 titles compared.
    const allow = (id: string) => id === '/area-0/doc-0.md' || id === '/area-1/doc-1.md';
    const options = { limit: 5, allow };
    const solo = index.zeroResultHelp('wrodb1 wordq16x', options);
    assert.ok(solo.nearest.every((n) => allow(n.id)));
    const { results, steps } = interleave([index.zeroResultHelpSteps('wrodb1 wordq16x', options)]);
    assert.ok((steps[0] as number) > 2, `the admit tests alone yield: ${steps[0]} steps`);
    assert.deepEqual(results[0], solo);
  });

  it('a query stopped part way leaves the next queries their solo answers', () => {
    const index = indexOf(docs);
    const solo = index.search(relaxed, { limit: 100, mode: 'any' });
    const stopped = index.searchSteps(strict, { limit: 100, mode: 'any' });
    for (let i = 0; i < 3; i++) stopped.next();
    stopped.return([]);
    assert.deepEqual(index.search(relaxed, { limit: 100, mode: 'any' }), solo);
  });
});

describe('runSliced', () => {
  /** Steps that yield `count` times, then return how many times they were started. */
  function counted(count: number, started: { n: number }, finished: { n: number }): () => Sliced<number> {
    return function* () {
      started.n++;
      try {
        for (let i = 0; i < count; i++) yield;
        return started.n;
      } finally {
        finished.n++;
      }
    };
  }

  it('starts the work again when its input changed while it waited, and gives up slicing after maxRestarts', async () => {
    const started = { n: 0 };
    const finished = { n: 0 };
    let changes = 0;
    // Every turn given back sees a change: two restarts, then the work runs whole.
    const result = await runSliced(counted(5, started, finished), {
      sliceMs: 0,
      stale: () => ++changes > 0,
      maxRestarts: 2,
    });
    assert.equal(result, 3);
    assert.equal(finished.n, 3, 'each abandoned attempt ran its finally');
  });

  it('stops with the signal reason between slices, running the work finally', async () => {
    const started = { n: 0 };
    const finished = { n: 0 };
    const controller = new AbortController();
    let turns = 0;
    const reason = new Error('client gone');
    const work = runSliced(counted(1000, started, finished), {
      sliceMs: 0,
      signal: controller.signal,
      stale: () => {
        if (++turns === 3) controller.abort(reason);
        return false;
      },
    });
    // The signal is read after the turn, before `stale`: the abort in turn 3 is seen at turn 4.
    await assert.rejects(work, (error) => error === reason);
    assert.equal(turns, 3);
    assert.equal(finished.n, 1);
  });

  it('answers as runWhole does when nothing changes', async () => {
    const index = indexOf(corpus());
    const solo = index.search(relaxed, { limit: 40, mode: 'any' });
    assert.deepEqual(
      await runSliced(() => index.searchSteps(relaxed, { limit: 40, mode: 'any' }), { sliceMs: 0 }),
      solo,
    );
  });
});
