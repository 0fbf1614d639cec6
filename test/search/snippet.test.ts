import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cutSnippet, maxSnippetBytes, utf8Length } from '../../src/search/index.ts';
import { doc, filler, indexOf } from './fixtures.ts';
import { bestLine } from '../../src/search/snippet.ts';
import { prng } from '../support/prng.ts';

describe('snippets (Go `bodymatch.go`)', () => {
  const index = indexOf([
    doc('/s.md', {
      body: ['# Part', 'alpha only here', 'alpha and beta together', 'alpha and beta again', 'nothing'].join('\n'),
    }),
    ...filler(3),
  ]);

  it('takes the line with the most term hits', () => {
    assert.equal(index.search('alpha beta')[0]?.snippet, 'alpha and beta together');
  });

  it('lets the first line win a tie', () => {
    assert.equal(index.search('alpha')[0]?.snippet, 'alpha only here');
  });

  it('keeps a line of exactly 240 bytes whole', () => {
    const line = 'x'.repeat(240);
    assert.equal(cutSnippet(line), line);
  });

  it('cuts a longer line to 237 bytes and appends ...', () => {
    const cut = cutSnippet('y'.repeat(300));
    assert.equal(cut, `${'y'.repeat(237)}...`);
    assert.equal(utf8Length(cut), maxSnippetBytes);
  });

  it('cuts on a rune boundary, never inside a multi-byte character', () => {
    const cut = cutSnippet('节'.repeat(100));
    assert.equal(cut, `${'节'.repeat(79)}...`);
    assert.ok(utf8Length(cut) <= maxSnippetBytes);
    const emoji = cutSnippet(`a${'😀'.repeat(80)}`);
    assert.equal(emoji, `a${'😀'.repeat(59)}...`);
  });

  it('cuts long section lines in search rows', () => {
    const long = indexOf([doc('/l.md', { body: `# H\nneedle ${'word '.repeat(80)}\n` }), ...filler(2)]);
    const snippet = long.search('needle')[0]?.snippet ?? '';
    assert.ok(snippet.endsWith('...'));
    assert.equal(utf8Length(snippet), maxSnippetBytes);
  });
});

describe('snippet line choice', () => {
  /** The rule spelled out line by line: most distinct stems in the lowercase line, first non-empty wins. */
  function naiveBestLine(text: string, stems: string[]): string {
    let best = '';
    let bestHits = -1;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const lower = line.toLowerCase();
      const hits = stems.filter((s) => lower.includes(s)).length;
      if (hits > bestHits) {
        best = line;
        bestHits = hits;
      }
    }
    return best;
  }

  it('picks the line the line-by-line rule picks, on generated text', () => {
    const random = prng(16);
    const words = ['Alpha', 'beta', 'ΣΊΣΥΦΟΣ', 'İstanbul', '节点', 'gamma', 'delta', 'alphabet', '', ' '];
    const stems = ['alph', 'bet', 'σίσυφος', 'i̇st', '节', 'gam', 'zzz'];
    for (let n = 0; n < 500; n++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
        Array.from({ length: Math.floor(random() * 6) }, () => words[Math.floor(random() * words.length)]).join(' '),
      );
      const text = lines.join('\n');
      const chosen = stems.filter(() => random() < 0.5);
      const terms = chosen.map((stem) => ({ text: stem, stem, expands: true }));
      assert.equal(bestLine(text, terms), naiveBestLine(text, chosen), JSON.stringify({ text, chosen }));
    }
  });
});
