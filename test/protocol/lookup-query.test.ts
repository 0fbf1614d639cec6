import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countLookupTerms, isLookupQueryTooShort, lookupTerms } from '../../src/protocol/lookup-query.ts';

const distinctTerms = (n: number) => Array.from({ length: n }, (_, i) => `term${i}`).join(' ');

describe('lookupTerms (catalog.Tokenize)', () => {
  it('lower-cases, splits on white space and de-duplicates in first-seen order', () => {
    assert.deepEqual(lookupTerms('  Auth GO auth\u3000middleware go '), ['auth', 'go', 'middleware']);
  });

  it('keeps punctuation inside terms and yields nothing for blank input', () => {
    assert.deepEqual(lookupTerms('path.Match *'), ['path.match', '*']);
    assert.deepEqual(lookupTerms(' \t '), []);
  });

  it('stops counting once past the limit', () => {
    assert.equal(countLookupTerms(distinctTerms(40), 32), 33);
    assert.equal(countLookupTerms('a A a b', 32), 2);
  });

  it('counts words joined by any Go white space, U+0085 included, as separate terms', () => {
    assert.equal(countLookupTerms('one\u0085two\u00a0three', 32), 3);
    assert.equal(countLookupTerms('one\ufefftwo', 32), 1);
  });
});

describe('isLookupQueryTooShort (handler.handleLookup step 1)', () => {
  it('counts runes after trimming Go white space, and lets `*` alone through', () => {
    for (const short of ['', ' \t ', 'a', ' é ', '😀', '\u0085x\u00a0'])
      assert.equal(isLookupQueryTooShort(short), true);
    for (const long of ['go', ' * ', '\ufeffx', '中文']) assert.equal(isLookupQueryTooShort(long), false);
  });
});
