import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeNearest,
  decodeQueryStats,
  decodeScores,
  encodeNearest,
  encodeQueryStats,
  encodeScores,
  mergeQueryStats,
  parseNearestCount,
  parseQuery,
} from '../../src/search/index.ts';
import { doc, filler, indexOf } from './fixtures.ts';

describe('LOOKUP extension values (src/search/lookup-extension.ts)', () => {
  const index = indexOf([
    doc('/a.md', { title: 'Alpha', description: 'first', body: '# Keys\nrotation of keys\n' }),
    ...filler(3),
  ]);

  it('carries query statistics through metadata values unchanged', () => {
    const stats = index.queryStats('rotation keys 节');
    const wire = encodeQueryStats(stats);
    assert.match(wire['corpus-stats'], /^docs=4,sections=\d+,described=1,name=\d+,description=1,body=\d+,trail=\d+$/);
    assert.equal(wire['corpus-df'], 'rotation=1,keys=1,节=0');
    assert.deepEqual(decodeQueryStats(wire['corpus-stats'], wire['corpus-df']), {
      totals: stats.totals,
      df: { ...stats.df },
    });
  });

  it('refuses statistics with a missing, unknown, repeated or non-numeric field', () => {
    const { 'corpus-stats': totals } = encodeQueryStats(index.queryStats('keys'));
    for (const bad of [
      totals.replace(/,trail=\d+/, ''),
      `${totals},extra=1`,
      `${totals},docs=1`,
      totals.replace(/docs=\d+/, 'docs=-1'),
      totals.replace(/docs=\d+/, 'docs=1.5'),
    ]) {
      assert.throws(() => decodeQueryStats(bad, ''), { code: 'ERR_LOOKUP_EXTENSION' }, bad);
    }
    assert.throws(() => decodeQueryStats(totals, 'keys'), { code: 'ERR_LOOKUP_EXTENSION' });
  });

  it('never reads a df from Object.prototype, so `constructor` is an ordinary term', () => {
    const merged = mergeQueryStats([index.queryStats('constructor'), index.queryStats('constructor')]);
    assert.equal(merged.df.constructor, 0);
    const global = decodeQueryStats(encodeQueryStats(merged)['corpus-stats'], '');
    const rows = index.search('constructor keys', { mode: 'any', globalStats: global });
    assert.ok(rows.every((r) => Number.isFinite(r.score)));
  });

  it('reads scores only when they count the rows', () => {
    assert.equal(encodeScores([1.23456, 0]), '1.2346,0.0000');
    assert.deepEqual(decodeScores('1.2346,0.0000', 2), [1.2346, 0]);
    assert.equal(decodeScores('1.2346', 2), undefined);
    assert.equal(decodeScores('1.2,abc', 2), undefined);
    assert.deepEqual(decodeScores('', 0), []);
    assert.equal(decodeScores(undefined, 0), undefined);
  });

  it('carries nearest titles as JSON and drops entries that are not well formed', () => {
    const text = encodeNearest([{ path: '/k.md', title: 'Key "board" | nav', similarity: 0.75 }]);
    assert.deepEqual(decodeNearest(text), [{ path: '/k.md', title: 'Key "board" | nav', similarity: 0.75 }]);
    assert.deepEqual(decodeNearest('[{"path":"k.md","title":"x","similarity":1},{"title":"y"}]'), []);
    assert.deepEqual(decodeNearest('not json'), []);
  });

  it('accepts 1 to 10 nearest titles', () => {
    assert.equal(parseNearestCount('3'), 3);
    assert.equal(parseNearestCount(undefined), undefined);
    for (const bad of ['0', '11', 'x', '-1'])
      assert.throws(() => parseNearestCount(bad), { code: 'ERR_LOOKUP_EXTENSION' });
  });
});

describe('statistics over what a caller may read', () => {
  const index = indexOf([
    doc('/open/a.md', { title: 'A', body: 'quartz rotation\n' }),
    doc('/secret/b.md', { title: 'B', description: 'hidden', body: 'quartz only here\n' }),
    ...filler(2),
  ]);

  it('counts only admitted documents in totals and df', () => {
    const all = index.queryStats('quartz');
    const visible = index.queryStats('quartz', { admit: (id) => !id.startsWith('/secret/') });
    assert.equal(all.totals.docCount, 4);
    assert.equal(all.df.quartz, 2);
    assert.equal(visible.totals.docCount, 3);
    assert.equal(visible.totals.describedDocs, 0);
    assert.equal(visible.df.quartz, 1);
  });

  it('suggests only admitted titles', () => {
    assert.ok(index.zeroResultHelp('Filler').nearest.some((n) => n.id === '/filler/f0.md'));
    const near = index.zeroResultHelp('Filler', { allow: (id) => id !== '/filler/f0.md' }).nearest.map((n) => n.id);
    assert.ok(near.length > 0 && !near.includes('/filler/f0.md'));
  });
});

describe('question words (stoplist additions)', () => {
  const texts = (q: string) => parseQuery(q).map((t) => t.text);

  it('drops interrogatives, auxiliaries and pronouns so a strict answer is not emptied by them', () => {
    assert.deepEqual(texts('why should my cache expire when your token was rotated?'), [
      'cache',
      'expire',
      'token',
      'rotated',
    ]);
    const index = indexOf([
      doc('/c.md', { body: '# Cache\nThe cache expires once the token is rotated.\n' }),
      ...filler(3),
    ]);
    assert.equal(index.search('why should my cache expire when the token was rotated', { mode: 'all' }).length, 1);
  });

  it('keeps prepositions of time and place, which carry meaning', () => {
    assert.deepEqual(texts('read before touching code'), ['read', 'before', 'touching', 'code']);
    assert.deepEqual(texts('run without inside after'), ['run', 'without', 'inside', 'after']);
  });
});
