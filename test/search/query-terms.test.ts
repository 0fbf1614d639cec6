import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery, stem } from '../../src/search/index.ts';

const texts = (q: string): string[] => parseQuery(q).map((t) => t.text);

describe('query-side stemming (spexcode `ranker.ts`)', () => {
  it('drops a plural s but not ss', () => {
    assert.equal(stem('sessions'), 'session');
    assert.equal(stem('process'), 'process');
  });

  it('drops a mute e from words of five or more letters', () => {
    assert.equal(stem('merge'), 'merg');
    assert.equal(stem('declare'), 'declar');
    assert.equal(stem('uses'), 'use');
  });

  it('drops ing and ed and undoes a doubled consonant', () => {
    assert.equal(stem('merging'), 'merg');
    assert.equal(stem('committing'), 'commit');
    assert.equal(stem('dropped'), 'drop');
    assert.equal(stem('installed'), 'install');
  });

  it('leaves short words alone', () => {
    assert.equal(stem('used'), 'used');
    assert.equal(stem('string'), 'string');
    assert.equal(stem('bus'), 'bus');
  });
});

describe('query terms (Go `bodymatch.go` queryTerms with our refinements)', () => {
  it('drops stopwords and single letters, in first-seen order', () => {
    assert.deepEqual(texts('How does the worker declare it is done?'), ['worker', 'declare', 'done']);
  });

  it('keeps the stopwords when the query has nothing else', () => {
    assert.deepEqual(texts('to be or not'), ['to', 'be', 'or', 'not']);
  });

  it('does not stop quantifiers', () => {
    assert.deepEqual(texts('too many owners'), ['too', 'many', 'owners']);
  });

  it('replaces a field with inner punctuation by its word runs', () => {
    assert.deepEqual(texts("session's keyboard-nav path.Match"), ['session', 'keyboard', 'nav', 'path', 'match']);
  });

  it('merges terms that share a stem', () => {
    assert.deepEqual(texts('sessions session order'), ['sessions', 'order']);
  });

  it('splits CJK into single characters that match whole tokens only', () => {
    assert.deepEqual(parseQuery('节点'), [
      { text: '节', stem: '节', expands: false },
      { text: '点', stem: '点', expands: false },
    ]);
  });

  it('lets only stems of three letters or more expand as prefixes', () => {
    assert.equal(parseQuery('id')[0]?.expands, false);
    assert.equal(parseQuery('ids')[0]?.expands, true);
  });

  it('yields no terms for * or punctuation', () => {
    assert.deepEqual(parseQuery('*'), []);
    assert.deepEqual(parseQuery(' -- ? '), []);
  });

  it('keeps at most 32 terms', () => {
    const many = Array.from({ length: 40 }, (_, i) => `word${i}x`).join(' ');
    assert.equal(parseQuery(many).length, 32);
  });
});
