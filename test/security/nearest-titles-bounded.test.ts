/**
 * Threat: one anonymous query makes a world (and so every broker search that
 * reaches it) compute for minutes. When a body LOOKUP finds nothing and asks
 * for `nearest-titles` (as every `mark_search` does), the world compares each
 * query word with each distinct title word by edit distance
 * (src/search/nearest-titles.ts). The words were split from the query by a
 * rule of their own, with no bound on their number or length: the 32-term
 * LOOKUP cap counts whitespace fields, so `x1.x2.….x10000` is one term there,
 * and parseQuery's 32-byte word bound was not applied.
 *
 * The attacks below succeeded before the fix (checked by running this file
 * against it): each child was killed at the bound with no answer. The review
 * that found them measured a 10,000-word dotted field at 71 s in one world
 * LOOKUP, `'q'.repeat(60000)` at 9.6 s, and 5,000 words against 300 titles at
 * 43.5 s and 406 MB of heap. Now the query words are parseQuery's terms (at
 * most 32, of at most 32 bytes: src/search/query-terms.ts, tokenize.ts), and so
 * are a title's words.
 *
 * The bound without a timing threshold is test/support/run-in-child.ts's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInChild } from '../support/run-in-child.ts';

const nearest = new URL('../../src/search/nearest-titles.ts', import.meta.url);
const worlds = new URL('../broker/search/in-process-worlds.ts', import.meta.url);

/** A few hundred titles of ordinary words, built in the child (the same every run). */
const titles = `
const vocabulary = ['alpha', 'beacon', 'cellar', 'dormant', 'ember', 'fjord', 'garnet', 'harbor', 'island', 'juniper'];
const docs = Array.from({ length: 300 }, (_, i) => ({
  id: '/d/doc' + i + '.md',
  name: 'doc' + i + '.md',
  title: vocabulary[i % 10] + ' ' + vocabulary[(i * 7) % 10] + ' x' + i + ' part' + (i % 37),
}));
docs.push({ id: '/d/keyboard.md', name: 'keyboard.md', title: 'Keyboard navigation' });
`;

describe('security: nearest titles cost a bounded amount whatever the query', () => {
  it('a megabyte of dotted words is read as its first 32 terms', async () => {
    const same = await runInChild(
      { n: nearest },
      `${titles}
      let query = '';
      for (let i = 1; query.length < 1_000_000; i++) query += (i > 1 ? '.' : '') + 'x' + i;
      const first32 = Array.from({ length: 32 }, (_, i) => 'x' + (i + 1)).join(' ');
      const long = n.nearestTitles(query, docs, 3);
      return { long, first32: n.nearestTitles(first32, docs, 3) };`,
    );
    const { long, first32 } = same as { long: unknown[]; first32: unknown[] };
    assert.equal(long.length, 3);
    assert.deepEqual(long, first32);
  });

  it('a megabyte-long word, in the query or in a title, is not compared', async () => {
    const found = await runInChild(
      { n: nearest },
      `${titles}
      docs.push({ id: '/d/huge.md', name: 'huge.md', title: fill('k') + ' board' });
      return n.nearestTitles(fill('q') + ' kyeboard', docs, 3).map((t) => t.id);`,
    );
    // `keyboard` (0.75) first; the huge title is still suggested by its word `board` (0.625).
    assert.deepEqual(found, ['/d/keyboard.md', '/d/huge.md']);
  });

  it('a world answers a body LOOKUP of 10,000 dotted words with nearest-titles 3', async () => {
    const answer = await runInChild(
      { w: worlds },
      `${titles}
      // More distinct title words, so the comparison of every query word with each costs minutes.
      docs.forEach((doc, i) => { if (i < 300) doc.title += Array.from({ length: 6 }, (_, j) => ' mn' + i + 'p' + j).join(''); });
      const world = await w.openInProcessWorlds(['w']);
      try {
        for (const doc of docs) await world.publish('w', doc.id, '# ' + doc.title + '\\n\\nSome text.\\n');
        const query = ['kyeboard', ...Array.from({ length: 9_999 }, (_, i) => 'x' + i.toString(36).padStart(4, 'k'))].join('.');
        const r = await world.call('w', 'LOOKUP', '/', { query, match: 'body', 'nearest-titles': '3' });
        return { status: r.status, matches: r.metadata.matches, nearest: JSON.parse(r.metadata['nearest-titles']).map((t) => t.path) };
      } finally {
        await world.close();
      }`,
    );
    assert.deepEqual(answer, { status: 'ok', matches: '0', nearest: ['/d/keyboard.md'] });
  });
});
