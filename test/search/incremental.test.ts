import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeQueryStats, SearchIndex, wordRuns } from '../../src/search/index.ts';
import type { SearchDoc } from '../../src/search/index.ts';
import { doc, filler, indexOf, paths } from './fixtures.ts';

function corpus(n: number, salt: string): SearchDoc[] {
  const words = ['river', 'stone', 'lantern', 'harbor', 'meadow', 'signal', 'copper', 'window', 'orbit', 'garden'];
  return Array.from({ length: n }, (_, i) =>
    doc(`/c/${salt}${i}.md`, {
      title: `${words[i % 10]} ${words[(i * 3) % 10]}`,
      description: i % 2 ? `about ${words[(i * 7) % 10]}` : '',
      tags: i % 3 ? [words[(i + 1) % 10] ?? 'x'] : [],
      body: `# ${words[(i * 5) % 10]}\n${words[i % 10]} ${words[(i + 2) % 10]} ${salt}\n## more\n${words[(i + 4) % 10]} text\n`,
    }),
  );
}

/** Everything observable about the corpus statistics, for comparing two indexes. */
function snapshot(index: SearchIndex, docs: SearchDoc[]): unknown {
  const { df, avgFieldLengths, deadPostings: _dead, ...totals } = index.stats();
  const vocabulary = new Set(
    docs.flatMap((d) => wordRuns(`${d.title} ${d.name ?? ''} ${d.tags.join(' ')} ${d.description ?? ''} ${d.body}`)),
  );
  return { totals, avgFieldLengths, df: [...vocabulary].sort().map((w) => [w, df(w)]) };
}

describe('incremental updates', () => {
  it('answers from the new body after an upsert and forgets the old one', () => {
    const index = indexOf([doc('/a.md', { body: '# H\nold wording\n' }), ...filler(3)]);
    assert.deepEqual(paths(index.search('old')), ['/a.md#h']);
    index.upsert(doc('/a.md', { body: '# H\nnew wording\n' }));
    assert.deepEqual(paths(index.search('old')), []);
    assert.deepEqual(paths(index.search('new')), ['/a.md#h']);
    assert.equal(index.size, 4);
  });

  it('drops every row of a removed document', () => {
    const index = indexOf([doc('/a.md', { body: '# H\nlantern\n' }), doc('/b.md', { body: '# H\nlantern\n' })]);
    assert.equal(index.remove('/a.md'), true);
    assert.deepEqual(paths(index.search('lantern')), ['/b.md#h']);
    assert.equal(index.remove('/a.md'), false);
    assert.equal(index.stats().df('lantern'), 1);
  });

  it('keeps statistics equal to a rebuild from scratch after upserts and removes', () => {
    const first = corpus(40, 'x');
    const index = indexOf(first);
    const changed = corpus(15, 'y').map((d, i) => ({ ...d, id: first[i * 2]?.id ?? d.id }));
    for (const d of changed) index.upsert(d);
    for (let i = 1; i < 40; i += 5) index.remove(first[i]?.id ?? '');
    const live = new Map(first.map((d) => [d.id, d]));
    for (const d of changed) live.set(d.id, d);
    for (let i = 1; i < 40; i += 5) live.delete(first[i]?.id ?? '');
    const rebuilt = indexOf([...live.values()]);
    const everything = [...first, ...changed];
    assert.deepEqual(snapshot(index, everything), snapshot(rebuilt, everything));
    for (const q of ['river stone', 'lantern', 'copper x', 'meadow y text']) {
      assert.deepEqual(index.search(q, { limit: 50, mode: 'any' }), rebuilt.search(q, { limit: 50, mode: 'any' }));
    }
  });

  it('answers the same after an explicit compaction', () => {
    const docs = corpus(300, 'z');
    const index = indexOf(docs);
    for (const d of docs.slice(0, 200)) index.upsert({ ...d, body: `${d.body}\nrevised` });
    assert.ok(index.stats().deadPostings > 0);
    const before = index.search('revised harbor', { limit: 100, mode: 'any' });
    index.compact();
    assert.equal(index.stats().deadPostings, 0);
    assert.deepEqual(index.search('revised harbor', { limit: 100, mode: 'any' }), before);
  });

  it('compacts by itself once dead postings outnumber live ones, and answers the same', () => {
    const docs = corpus(300, 'z');
    const index = new SearchIndex({ compactAfterDeadPostings: 100 });
    for (const d of docs) index.upsert(d);
    let compactions = 0;
    for (const d of docs.slice(0, 250)) {
      const dead = index.stats().deadPostings;
      index.remove(d.id);
      if (index.stats().deadPostings < dead) compactions++;
    }
    assert.ok(compactions >= 1);
    const rebuilt = indexOf(docs.slice(250).map((d) => d));
    assert.deepEqual(
      index.search('harbor text', { limit: 100, mode: 'any' }),
      rebuilt.search('harbor text', { limit: 100, mode: 'any' }),
    );
    assert.equal(index.stats().docCount, 50);
  });
});

describe('cross-world statistics', () => {
  const worldA = corpus(30, 'a');
  const worldB = corpus(20, 'b').map((d) => ({ ...d, id: `/b${d.id}` }));
  const a = indexOf(worldA);
  const b = indexOf(worldB);
  const union = indexOf([...worldA, ...worldB]);

  it('sums per-world query statistics into the statistics of the union', () => {
    const q = 'river lantern orbit';
    assert.deepEqual(mergeQueryStats([a.queryStats(q), b.queryStats(q)]), union.queryStats(q));
  });

  it('scores a world with merged statistics exactly as the union would', () => {
    const q = 'harbor copper text';
    const global = mergeQueryStats([a.queryStats(q), b.queryStats(q)]);
    const merged = [
      ...a.search(q, { limit: 100, mode: 'any', globalStats: global }),
      ...b.search(q, { limit: 100, mode: 'any', globalStats: global }),
    ];
    const expected = union.search(q, { limit: 100, mode: 'any' });
    const key = (r: { id: string; anchor: string; score: number }): string => `${r.id}#${r.anchor}=${r.score}`;
    assert.deepEqual(merged.map(key).sort(), expected.map(key).sort());
  });

  it('scores differently with only local statistics', () => {
    const q = 'harbor copper text';
    const local = a.search(q, { limit: 5, mode: 'any' }).map((r) => r.score);
    const global = a
      .search(q, { limit: 5, mode: 'any', globalStats: mergeQueryStats([a.queryStats(q), b.queryStats(q)]) })
      .map((r) => r.score);
    assert.notDeepEqual(local, global);
  });
});
