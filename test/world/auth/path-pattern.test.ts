import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchPath, PatternError, validatePattern } from '../../../src/world/auth/path-pattern.ts';

describe('token path patterns (Go auth.matchPath)', () => {
  const cases: [pattern: string, path: string, want: boolean][] = [
    ['/docs/*', '/docs/file.md', true],
    ['/docs/*', '/docs/sub/file.md', false],
    ['/docs/**', '/docs/a/b/c/file.md', true],
    ['/docs/**', '/docs/a', true],
    ['/docs/**', '/docs', false],
    ['/docs/**', '/docsx/a.md', false],
    ['/**', '/anything.md', true],
    ['/**', '/a/b/c/d.md', true],
    ['/docs/**/file.md', '/docs/file.md', true],
    ['/docs/**/file.md', '/docs/a/b/file.md', true],
    ['/docs/**/file.md', '/docs/a/b/other.md', false],
    ['/docs/**/file.md', '/docs/a/xfile.md', false],
    ['/docs/**/sub/*.md', '/docs/a/sub/x.md', true],
    ['/docs/**/sub/*.md', '/docs/a/b/sub/notes.md', true],
    ['/docs/**/sub/*.md', '/docs/a/other/x.md', false],
    ['/docs/**/sub/*.md', '/docs/sub/x.md', true],
    ['/team/', '/team/', true],
    ['/team/', '/team', false],
    // The prefix before ** is literal, as in Go: it is not itself a glob.
    ['/d*/**', '/docs/a.md', false],
    ['/d*/**', '/d*/a.md', true],
  ];
  for (const [pattern, path, want] of cases) {
    it(`${want ? 'grants' : 'does not grant'} ${path} under ${pattern}`, () => {
      assert.equal(matchPath(pattern, path), want);
    });
  }

  for (const pattern of ['/docs/*', '/docs/**', '/**', '/docs/**/file.md', '/a/[bc]/*.md', '/team/']) {
    it(`loads the valid pattern ${pattern}`, () => {
      assert.doesNotThrow(() => validatePattern(pattern));
    });
  }

  const loadErrors: [pattern: string, message: RegExp][] = [
    ['/docs**', /must be delimited by slashes/],
    ['/**docs', /must be delimited by slashes/],
    ['/a/**/b/**/c', /only one \*\* wildcard/],
    ['/docs/[invalid', /syntax error in pattern/],
    ['/docs/\\', /syntax error in pattern/],
  ];
  for (const [pattern, message] of loadErrors) {
    it(`refuses ${pattern} at load`, () => {
      assert.throws(
        () => validatePattern(pattern),
        (err: unknown) => err instanceof PatternError && message.test(err.message),
      );
    });
  }
});
