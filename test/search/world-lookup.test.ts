import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeNearest, decodeQueryStats, decodeScores } from '../../src/search/index.ts';
import { parseLookupRows } from '../../src/broker/search/index.ts';
import type { Metadata } from '../../src/protocol/metadata.ts';
import type { MarkResponse } from '../../src/protocol/response.ts';
import { openInProcessWorlds, type InProcessWorlds } from '../broker/search/in-process-worlds.ts';

/** LOOKUP `match: body` through a real world: the index follows every write, and read-auth holds. */
const rowsOf = (response: MarkResponse) =>
  parseLookupRows(response).map((r) => (r.anchor ? `${r.path}#${r.anchor}` : r.path));

describe('LOOKUP match: body keeps its index current through the world', () => {
  let worlds: InProcessWorlds;
  const body = (query: string, extra: Metadata = {}) =>
    worlds.call('w', 'LOOKUP', '/', { query, match: 'body', ...extra });
  before(async () => {
    worlds = await openInProcessWorlds(['w']);
  });
  after(() => worlds.close());

  it('finds a new document on publish and forgets its old text on republish', async () => {
    await worlds.publish('w', '/ops/rotate.md', '# Rotation\n\nKeys rotate nightly.\n');
    assert.deepEqual(rowsOf(await body('nightly')), ['/ops/rotate.md#rotation']);
    await worlds.publish('w', '/ops/rotate.md', '# Rotation\n\nKeys rotate weekly.\n');
    assert.deepEqual(rowsOf(await body('nightly')), []);
    assert.deepEqual(rowsOf(await body('weekly')), ['/ops/rotate.md#rotation']);
  });

  it('finds appended text in its new section', async () => {
    const appended = await worlds.call(
      'w',
      'APPEND',
      '/ops/rotate.md',
      { auth: worlds.tokens.writer, 'expected-version': '2' },
      '\n## Audit\n\nEvery rotation is logged.\n',
    );
    assert.equal(appended.status, 'created');
    assert.deepEqual(rowsOf(await body('logged')), ['/ops/rotate.md#audit']);
  });

  it('drops an archived document and finds it again once unarchived', async () => {
    assert.equal((await worlds.call('w', 'ARCHIVE', '/ops/rotate.md', { auth: worlds.tokens.writer })).status, 'ok');
    assert.equal((await body('weekly')).metadata.matches, '0');
    const unarchived = await worlds.call('w', 'PUBLISH', '/ops/rotate.md', { auth: worlds.tokens.writer });
    assert.equal(unarchived.status, 'ok');
    assert.deepEqual(rowsOf(await body('weekly')), ['/ops/rotate.md#rotation']);
  });

  it('reaches CJK prose with a CJK query, character by character', async () => {
    await worlds.publish('w', '/zh/node.md', '# 节点\n\n每个节点都有一个状态。\n');
    assert.deepEqual(rowsOf(await body('节点状态')), ['/zh/node.md#节点']);
    assert.deepEqual(rowsOf(await body('会话')), []);
  });

  it('reaches inflected words through the query stem, and ignores question words', async () => {
    await worlds.publish('w', '/ops/merge.md', '# Merging\n\nThe merging queue declares conflicts early.\n');
    assert.deepEqual(rowsOf(await body('merge declaration')), []);
    assert.deepEqual(rowsOf(await body('why should merges declare conflicts')), ['/ops/merge.md#merging']);
  });

  it('answers the Go `bodymatch.go` contract unchanged when no extension key is sent', async () => {
    const response = await body('nightly rotation');
    assert.deepEqual(Object.keys(response.metadata).sort(), ['match', 'matches']);
  });

  it('relaxes to any term only when asked, and echoes that it did', async () => {
    const strict = await body('weekly zzzabsent');
    assert.equal(strict.metadata.matches, '0');
    const relaxed = await body('weekly zzzabsent', { 'match-terms': 'any' });
    assert.equal(relaxed.metadata['match-terms'], 'any');
    assert.deepEqual(rowsOf(relaxed), ['/ops/rotate.md#rotation']);
    assert.equal((await body('weekly', { 'match-terms': 'all' })).metadata['match-terms'], 'all');
  });

  it('refuses malformed extension values as bad-request', async () => {
    const malformed: Metadata[] = [
      { 'match-terms': 'some' },
      { 'corpus-stats': 'docs=x' },
      { 'corpus-df': 'a=1' },
      { 'nearest-titles': '0' },
      { 'nearest-titles': '11' },
      { 'own-stats': 'yes', 'corpus-stats': 'only' },
      { 'own-stats': 'include' },
      { 'own-stats': 'include', 'corpus-stats': 'only' },
    ];
    for (const extra of malformed) {
      assert.equal((await body('weekly', extra)).status, 'bad-request', JSON.stringify(extra));
    }
  });

  it('returns scores only under statistics the caller supplied, one per row', async () => {
    assert.equal((await body('rotation', { 'match-terms': 'any' })).metadata['row-scores'], undefined);
    const stats = await body('rotation', { 'corpus-stats': 'only' });
    assert.equal(stats.metadata.matches, '0');
    const scored = await body('rotation', {
      'corpus-stats': stats.metadata['corpus-stats']!,
      'corpus-df': stats.metadata['corpus-df']!,
    });
    const scores = decodeScores(scored.metadata['row-scores'], Number(scored.metadata.matches));
    assert.ok(scores !== undefined && scores.length > 0 && scores.every((s) => s > 0));
    assert.deepEqual(
      [...scores].sort((a, b) => b - a),
      scores,
    );
  });

  it('answers its own statistics beside rows scored with supplied ones, only when asked', async () => {
    const own = await body('rotation', { 'corpus-stats': 'only' });
    const supplied = {
      'corpus-stats': 'docs=50,sections=80,described=0,name=100,description=0,body=900,trail=160',
      'corpus-df': 'rotation=3',
    };
    const plain = await body('rotation', supplied);
    assert.equal(plain.metadata['corpus-stats'], undefined);
    const checked = await body('rotation', { ...supplied, 'own-stats': 'include' });
    // The statistics are this world's, not the ones it scored with...
    assert.equal(checked.metadata['corpus-stats'], own.metadata['corpus-stats']);
    assert.equal(checked.metadata['corpus-df'], own.metadata['corpus-df']);
    assert.notEqual(checked.metadata['corpus-stats'], supplied['corpus-stats']);
    // ...and the rows and scores are those of the same request without the key.
    assert.deepEqual(rowsOf(checked), rowsOf(plain));
    assert.equal(checked.metadata['row-scores'], plain.metadata['row-scores']);
  });

  it('suggests the nearest titles when nothing matches, only when asked', async () => {
    assert.equal((await body('rotatoin')).metadata['nearest-titles'], undefined);
    const helped = await body('rotatoin', { 'nearest-titles': '2' });
    assert.equal(helped.metadata.matches, '0');
    assert.deepEqual(
      decodeNearest(helped.metadata['nearest-titles']).map((n) => n.path),
      ['/ops/rotate.md'],
    );
  });
});

describe('LOOKUP match: body under read-auth', () => {
  let worlds: InProcessWorlds;
  const body = (query: string, extra: Metadata = {}) =>
    worlds.call('w', 'LOOKUP', '/', { query, match: 'body', ...extra });
  before(async () => {
    worlds = await openInProcessWorlds(['w']);
    await worlds.publish('w', '/private/salary.md', '# Salary bands\n\nThe quartz budget is confidential.\n');
    await worlds.publish('w', '/public/budget.md', '# Budget\n\nThe public budget.\n');
  });
  after(() => worlds.close());

  it('hides protected section rows from a caller without the read token, counts included', async () => {
    const anonymous = await body('budget');
    assert.deepEqual(rowsOf(anonymous), ['/public/budget.md']);
    assert.equal(anonymous.metadata.matches, '1');
    const reader = await body('budget', { auth: worlds.tokens.reader });
    assert.deepEqual(rowsOf(reader).sort(), ['/private/salary.md#salary-bands', '/public/budget.md']);
  });

  it('does not count hidden documents in the statistics it reveals', async () => {
    const anonymous = decodeQueryStats(...statsOf(await body('quartz', { 'corpus-stats': 'only' })));
    assert.equal(anonymous.totals.docCount, 1);
    assert.equal(anonymous.df.quartz, 0);
    const reader = decodeQueryStats(
      ...statsOf(await body('quartz', { 'corpus-stats': 'only', auth: worlds.tokens.reader })),
    );
    assert.equal(reader.totals.docCount, 2);
    assert.equal(reader.df.quartz, 1);
  });

  it('counts only readable documents in the own statistics it answers beside rows', async () => {
    const supplied = {
      'corpus-stats': 'docs=9,sections=9,described=0,name=9,description=0,body=90,trail=9',
      'corpus-df': 'quartz=1',
    };
    const anonymous = await body('quartz', { ...supplied, 'own-stats': 'include' });
    assert.deepEqual(rowsOf(anonymous), []);
    assert.equal(decodeQueryStats(...statsOf(anonymous)).df.quartz, 0);
    const reader = await body('quartz', { ...supplied, 'own-stats': 'include', auth: worlds.tokens.reader });
    const readerStats = decodeQueryStats(...statsOf(reader));
    assert.deepEqual(readerStats.df, { quartz: 1 });
    assert.equal(readerStats.totals.docCount, 2);
  });

  it('never suggests a hidden title', async () => {
    const anonymous = await body('salery', { 'nearest-titles': '3' });
    assert.deepEqual(decodeNearest(anonymous.metadata['nearest-titles']), []);
    const reader = await body('salery', { 'nearest-titles': '3', auth: worlds.tokens.reader });
    assert.deepEqual(
      decodeNearest(reader.metadata['nearest-titles']).map((n) => n.path),
      ['/private/salary.md'],
    );
  });
});

function statsOf(response: MarkResponse): [string, string] {
  return [response.metadata['corpus-stats'] ?? '', response.metadata['corpus-df'] ?? ''];
}
