import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { editDistance, wordSimilarity } from '../../src/search/index.ts';
import { doc, indexOf } from './fixtures.ts';

describe('zero-result help (spexcode `ranker.ts`)', () => {
  const index = indexOf([
    doc('/ui/keyboard-nav.md', { title: 'keyboard-nav', body: '# Keys\nMove by relationship, not geometry.\n' }),
    doc('/ui/dashboard.md', { title: 'Dashboard shell', body: '# Shell\nThe root layout of the board.\n' }),
    doc('/ops/deploy.md', { title: 'Deployment runbook', body: '# Steps\nShip it to the fleet.\n' }),
  ]);

  it('measures words by normalised edit distance', () => {
    assert.equal(editDistance('kyeboard', 'keyboard'), 2);
    assert.equal(wordSimilarity('kyeboard', 'keyboard'), 0.75);
    assert.equal(wordSimilarity('same', 'same'), 1);
  });

  it('names the nearest title for a typo the search cannot find', () => {
    assert.deepEqual(index.search('kyeboard', { mode: 'any' }), []);
    const help = index.zeroResultHelp('kyeboard');
    assert.equal(help.nearest[0]?.id, '/ui/keyboard-nav.md');
    assert.equal(help.languageHint, undefined);
  });

  it('names no title when no word is even half similar', () => {
    assert.deepEqual(index.zeroResultHelp('xylophone').nearest, []);
  });

  it('hints at another language when the query script is rare in the corpus', () => {
    assert.deepEqual(index.search('会话'), []);
    const help = index.zeroResultHelp('会话');
    assert.deepEqual(help.nearest, []);
    assert.match(help.languageHint ?? '', /latin-script.*translate/);
  });

  it('gives no language hint once the corpus holds that script', () => {
    const zh = indexOf([doc('/zh/a.md', { title: '会议', body: '# 记录\n今天的会议很长。\n' })]);
    assert.equal(zh.zeroResultHelp('会话').languageHint, undefined);
  });
});
