import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cutSnippet, maxSnippetBytes, utf8Length } from '../../src/search/index.ts';
import { doc, filler, indexOf } from './fixtures.ts';
import { bestLine, bestLineOf, SnippetTerms } from '../../src/search/snippet.ts';
import { WordTable } from '../../src/search/line-words.ts';
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

  const words = ['Alpha', 'beta', 'ΣΊΣΥΦΟΣ', 'İstanbul', '节点', 'gamma', 'delta', 'alphabet', 'x_𝐀beta', '', ' '];
  const stems = ['alph', 'bet', 'σίσυφος', 'i̇st', '节', 'gam', 'zzz', '𝐀b', 'a b'];
  const generatedText = (random: () => number): string =>
    Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
      Array.from({ length: Math.floor(random() * 6) }, () => words[Math.floor(random() * words.length)]).join(
        random() < 0.8 ? ' ' : '-',
      ),
    ).join('\n');
  const termsOf = (chosen: string[]) => chosen.map((stem) => ({ text: stem, stem, expands: true }));

  it('picks the line the line-by-line rule picks, on generated text', () => {
    const random = prng(16);
    for (let n = 0; n < 500; n++) {
      const text = generatedText(random);
      const chosen = stems.filter(() => random() < 0.5);
      assert.equal(bestLine(text, termsOf(chosen)), naiveBestLine(text, chosen), JSON.stringify({ text, chosen }));
    }
  });

  it('keeps to that rule in one word table while texts come and go and queries follow each other', () => {
    const random = prng(17);
    const table = new WordTable();
    let live = new Map<string, ReturnType<WordTable['add']>>();
    for (let round = 0; round < 40; round++) {
      for (let n = 0; n < 10; n++) {
        const text = generatedText(random);
        if (!live.has(text)) live.set(text, table.add(text));
      }
      const kept = new Map<string, ReturnType<WordTable['add']>>();
      for (const [text, lines] of live) {
        if (random() < 0.4) table.release(lines);
        else kept.set(text, lines);
      }
      live = kept;
      const chosen = stems.filter(() => random() < 0.5);
      const terms = new SnippetTerms(table, termsOf(chosen));
      for (const [text, lines] of live)
        assert.equal(
          bestLineOf([{ text, lines }], terms),
          naiveBestLine(text, chosen),
          JSON.stringify({ text, chosen }),
        );
    }
    for (const lines of live.values()) table.release(lines);
    assert.equal(table.size, 0, 'every run is freed with the last text holding it');
  });

  it('reads a bare row as its description and sections joined by line breaks', () => {
    const random = prng(18);
    const table = new WordTable();
    for (let n = 0; n < 200; n++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => generatedText(random));
      const chosen = stems.filter(() => random() < 0.5);
      const texts = parts.map((text, i) => (i === 0 && random() < 0.5 ? { text } : { text, lines: table.add(text) }));
      assert.equal(
        bestLineOf(texts, new SnippetTerms(table, termsOf(chosen))),
        naiveBestLine(parts.join('\n'), chosen),
        JSON.stringify({ parts, chosen }),
      );
    }
  });
});
