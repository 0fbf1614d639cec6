import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goFields, goToLower, goTrimSpace } from '../../src/protocol/go-strings.ts';

describe('Go string semantics the LOOKUP query rules are written in', () => {
  it('trims unicode.IsSpace: U+0085 and U+3000 go, U+FEFF and U+200B stay', () => {
    assert.equal(goTrimSpace('\u0085\u3000 a b\t\n'), 'a b');
    assert.equal(goTrimSpace('\ufeffa\u200b'), '\ufeffa\u200b');
  });

  it('splits fields on every Go white space and drops empty fields', () => {
    assert.deepEqual(goFields(' a\u00a0b\u2003c\u0085d  '), ['a', 'b', 'c', 'd']);
    assert.deepEqual(goFields('a\ufeffb'), ['a\ufeffb']);
    assert.deepEqual(goFields('   '), []);
  });

  it('lower-cases rune by rune: İ becomes i and a final Σ becomes σ', () => {
    assert.equal(goToLower('İstanbul'), 'istanbul');
    assert.equal(goToLower('ΣΊΣΥΦΟΣ'), 'σίσυφοσ');
    assert.equal(goToLower('MiXeD'), 'mixed');
  });
});
