import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fieldTokens, wordRuns, utf8Length } from '../../src/search/index.ts';
import { trimNonWord } from '../../src/search/tokenize.ts';

describe('index tokens (Go `bodymatch.go`, spexcode `ranker.ts`)', () => {
  it('lowercases word runs of letters, numbers and underscore', () => {
    assert.deepEqual(wordRuns('Session_ID maps Port 8787'), ['session_id', 'maps', 'port', '8787']);
  });

  it('keeps accented Latin letters inside a run', () => {
    assert.deepEqual(wordRuns('Café naïve'), ['café', 'naïve']);
  });

  it('drops one-rune runs such as the s of a possessive', () => {
    assert.deepEqual(wordRuns("the session's end"), ['the', 'session', 'end']);
  });

  it('makes every CJK character its own token, exempt from the 2-rune floor', () => {
    assert.deepEqual(wordRuns('每个节点'), ['每', '个', '节', '点']);
    assert.deepEqual(wordRuns('API接口'), ['api', '接', '口']);
  });

  it('drops runs longer than 32 bytes and keeps one of exactly 32', () => {
    const at32 = 'a'.repeat(32);
    assert.deepEqual(wordRuns(`${at32} ${at32}b ok`), [at32, 'ok']);
  });

  it('counts bytes, not characters, against the 32-byte bound', () => {
    const accented = 'é'.repeat(17);
    assert.equal(utf8Length(accented), 34);
    assert.deepEqual(wordRuns(accented), []);
  });
});

describe('field tokens (Go `bodymatch.go` whole word plus runs)', () => {
  it('yields path.match, path and match for path.Match', () => {
    assert.deepEqual(fieldTokens('path.Match'), ['path.match', 'path', 'match']);
  });

  it('trims non-word characters from the ends of the whole word', () => {
    assert.deepEqual(fieldTokens('(keyboard-nav).'), ['keyboard-nav', 'keyboard', 'nav']);
  });

  it('yields a plain word once', () => {
    assert.deepEqual(fieldTokens('plain'), ['plain']);
  });

  it('yields no whole word for a field holding CJK, only its characters and runs', () => {
    assert.deepEqual(fieldTokens('API接口'), ['api', '接', '口']);
  });

  it('yields nothing for punctuation and single letters', () => {
    assert.deepEqual(fieldTokens('-- a ! *'), []);
  });
});

describe('trimNonWord', () => {
  // The regular expression it replaced, kept here as the reference for what the trim means.
  const reference = (field: string) => field.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, '');
  const alphabet = ['a', 'Z', '7', '_', '!', '-', ' ', '.', 'é', '接', '😀', '𝔸', '\u{1F600}x', '\uD800', '\uDC00'];

  it('trims exactly what the edge expression trims, on 20,000 generated fields', () => {
    let seed = 42;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 20_000; i += 1) {
      let field = '';
      for (let n = next() % 12; n > 0; n -= 1) field += alphabet[next() % alphabet.length];
      assert.equal(trimNonWord(field), reference(field), JSON.stringify(field));
    }
  });
});
