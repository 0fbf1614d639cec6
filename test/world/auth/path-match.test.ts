import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadPatternError, pathMatch } from '../../../src/world/auth/path-match.ts';

// Go's path.Match semantics, case by case (the table Go's own path package tests).
const matches: [pattern: string, name: string, want: boolean][] = [
  ['abc', 'abc', true],
  ['*', 'abc', true],
  ['*c', 'abc', true],
  ['a*', 'a', true],
  ['a*', 'abc', true],
  ['a*', 'ab/c', false],
  ['a*/b', 'abc/b', true],
  ['a*/b', 'a/c/b', false],
  ['a*b*c*d*e*/f', 'axbxcxdxe/f', true],
  ['a*b*c*d*e*/f', 'axbxcxdxexxx/f', true],
  ['a*b*c*d*e*/f', 'axbxcxdxe/xxx/f', false],
  ['a*b*c*d*e*/f', 'axbxcxdxexxx/fff', false],
  ['a*b?c*x', 'abxbbxdbxebxczzx', true],
  ['a*b?c*x', 'abxbbxdbxebxczzy', false],
  ['ab[c]', 'abc', true],
  ['ab[b-d]', 'abc', true],
  ['ab[e-g]', 'abc', false],
  ['ab[^c]', 'abc', false],
  ['ab[^b-d]', 'abc', false],
  ['ab[^e-g]', 'abc', true],
  ['a\\*b', 'a*b', true],
  ['a\\*b', 'ab', false],
  ['a?b', 'a☺b', true],
  ['a[^a]b', 'a☺b', true],
  ['a???b', 'a☺b', false],
  ['a[^a][^a][^a]b', 'a☺b', false],
  ['[a-ζ]*', 'α', true],
  ['*[a-ζ]', 'A', false],
  ['a?b', 'a/b', false],
  ['a*b', 'a/b', false],
  ['[\\]a]', ']', true],
  ['[\\-]', '-', true],
  ['[x\\-]', 'x', true],
  ['[x\\-]', '-', true],
  ['[x\\-]', 'z', false],
  ['[\\-x]', 'x', true],
  ['[\\-x]', '-', true],
  ['[\\-x]', 'a', false],
  ['*x', 'xxx', true],
  ['/docs/*', '/docs/file.md', true],
  ['/docs/*', '/docs/sub/file.md', false],
  ['/*', '/anything.md', true],
  ['/exact.md', '/exact.md', true],
  ['/exact.md', '/exact.mdx', false],
];

const malformed: [pattern: string, name: string][] = [
  ['[]a]', ']'],
  ['[-]', '-'],
  ['[x-]', 'x'],
  ['[x-]', '-'],
  ['[x-]', 'z'],
  ['[-x]', 'x'],
  ['[-x]', 'a'],
  ['\\', 'a'],
  ['[a-b-c]', 'a'],
  ['[', 'a'],
  ['[^', 'a'],
  ['[^bc', 'a'],
  ['a[', 'a'],
  ['a[', 'ab'],
  ['a[', 'x'],
  ['a/b[', 'x'],
  ['/docs/[invalid', '/docs/[invalid'],
];

describe('pathMatch (Go path.Match)', () => {
  for (const [pattern, name, want] of matches) {
    it(`${want ? 'matches' : 'does not match'} ${JSON.stringify(name)} with ${JSON.stringify(pattern)}`, () => {
      assert.equal(pathMatch(pattern, name), want);
    });
  }

  for (const [pattern, name] of malformed) {
    it(`rejects the malformed pattern ${JSON.stringify(pattern)} even against ${JSON.stringify(name)}`, () => {
      assert.throws(() => pathMatch(pattern, name), BadPatternError);
    });
  }
});
