import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareCodePoints,
  foldKey,
  goFields,
  goQuote,
  goToLower,
  goTrimSpace,
} from '../../../src/world/catalog/go-text.ts';

describe('Go string semantics the catalog relies on', () => {
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

  it('folds as strings.EqualFold: Kelvin sign, long s, final sigma and ẞ join their letters', () => {
    assert.equal(foldKey('\u212a'), foldKey('k'));
    assert.equal(foldKey('\u017f'), foldKey('S'));
    assert.equal(foldKey('ς'), foldKey('Σ'));
    assert.equal(foldKey('ẞ'), foldKey('ß'));
  });

  it('keeps dotless ı and dotted İ apart from i, as EqualFold does', () => {
    assert.notEqual(foldKey('ı'), foldKey('i'));
    assert.notEqual(foldKey('İ'), foldKey('i'));
    assert.notEqual(foldKey('ß'), foldKey('ss'));
  });

  it('orders strings by code point, as Go orders UTF-8 bytes', () => {
    assert.ok(compareCodePoints('/a/\uff5e', '/a/\u{1f600}') < 0);
    assert.ok('/a/\uff5e' > '/a/\u{1f600}', 'UTF-16 order differs here');
    assert.ok(compareCodePoints('/a', '/a/b') < 0);
    assert.ok(compareCodePoints('/b', '/a/b') > 0);
    assert.equal(compareCodePoints('/x', '/x'), 0);
  });

  it('quotes as strconv.Quote', () => {
    assert.equal(goQuote('plain é'), '"plain é"');
    assert.equal(goQuote('tab\there'), '"tab\\there"');
    assert.equal(goQuote('\u007f\u200b\u{e0001}'), '"\\x7f\\u200b\\U000e0001"');
  });
});
