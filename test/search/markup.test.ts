import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stripInline } from '../../src/search/markup.ts';

describe('inline markup stripped for the body index (Go `bodymatch.go`)', () => {
  it('keeps the text of links and images and the label or target of wiki links', () => {
    assert.equal(stripInline('![i](p) [l](q) [r][s] [t]'), 'i l r [t]');
    assert.equal(stripInline('[[a|b]] [[c]] [[d|]] [[|e]]'), 'b c [[d|]] [[|e]]');
    assert.equal(stripInline('[[a]] [b]]'), 'a [b]]');
    assert.equal(stripInline('[a](b'), '[a](b');
  });

  it('keeps the address of an http, https or mailto autolink and turns tags into spaces', () => {
    assert.equal(stripInline('<https://x.y> <mailto:a@b> <http:a b> <ftp://x>'), 'https://x.y mailto:a@b    ');
    assert.equal(stripInline('<b>x</b> < b> </i>'), ' x  < b>  ');
  });

  it('turns a comment into a space only when it closes on the same line', () => {
    assert.equal(stripInline('a<!--x-->b a<!--x\u2028y-->b'), 'a b a<!--x\u2028y-->b');
    assert.equal(stripInline('a<!--x b'), 'a<!--x b');
  });
});
