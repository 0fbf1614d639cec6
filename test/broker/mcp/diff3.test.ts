import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diff3 } from '../../../src/broker/mcp/merge/diff3.ts';

describe('diff3 merge candidate (reference client/merge Diff3)', () => {
  it('takes each side where only that side changed', () => {
    assert.deepEqual(diff3('a\nb\nc\n', 'A\nb\nc\n', 'a\nb\nC\n'), { body: 'A\nb\nC\n', conflict: false });
  });

  it('keeps one copy of a change both sides made', () => {
    assert.deepEqual(diff3('a\nb\n', 'a\nB\n', 'a\nB\n'), { body: 'a\nB\n', conflict: false });
  });

  it('marks overlapping different changes with git-style markers, ours first', () => {
    assert.deepEqual(diff3('a\nb\nc\n', 'a\nX\nc\n', 'a\nY\nc\n'), {
      body: 'a\n<<<<<<< ours\nX\n=======\nY\n>>>>>>> theirs\nc\n',
      conflict: true,
    });
  });

  it('starts every marker on its own line when a side ends without a newline', () => {
    assert.deepEqual(diff3('a\n', 'a\nours', 'a\ntheirs'), {
      body: 'a\n<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\n',
      conflict: true,
    });
  });

  it('merges two creations against an empty base: the same text once, different texts marked', () => {
    assert.deepEqual(diff3('', 'same\n', 'same\n'), { body: 'same\n', conflict: false });
    assert.equal(diff3('', 'one\n', 'two\n').conflict, true);
  });

  it('keeps both additions at opposite ends of the document', () => {
    assert.deepEqual(diff3('m\n', 'top\nm\n', 'm\nbottom\n'), { body: 'top\nm\nbottom\n', conflict: false });
  });

  it('never drops a line of either side on large inputs past the table bound', () => {
    const base = Array.from({ length: 2500 }, (_, i) => `line ${i}\n`).join('');
    const ours = base.replace('line 10\n', 'ours 10\n');
    const theirs = Array.from({ length: 2500 }, (_, i) => `other ${i}\n`).join('');
    const merged = diff3(base, ours, theirs);
    assert.ok(merged.body.includes('ours 10\n'));
    assert.ok(merged.body.includes('other 2499\n'));
  });
});
