import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareCodePoints, foldKey, goQuote } from '../../../src/world/catalog/go-text.ts';

describe('Go string semantics the catalog relies on', () => {
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
