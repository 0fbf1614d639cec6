import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalPath,
  hasDotDotSegment,
  isHashPath,
  isHiddenEntry,
  hasHiddenSegment,
  isValidRequestPath,
  splitVersionSuffix,
} from '../../src/protocol/paths.ts';
import { dialAuthority, identityUrl, MarkUrlError, parseMarkUrl } from '../../src/protocol/mark-url.ts';
import { maxRequestPathBytes } from '../../src/protocol/limits.ts';

describe('request paths', () => {
  it('accepts absolute paths with spaces and tabs, rejects controls, DEL and overlong paths', () => {
    assert.ok(isValidRequestPath('/docs/c d.md'));
    assert.ok(isValidRequestPath('/a\tb'));
    assert.ok(!isValidRequestPath(''));
    assert.ok(!isValidRequestPath('a.md'));
    assert.ok(!isValidRequestPath('/a\u0000'));
    assert.ok(!isValidRequestPath('/a\u007f'));
    assert.ok(isValidRequestPath(`/${'a'.repeat(maxRequestPathBytes - 1)}`));
    assert.ok(!isValidRequestPath(`/${'a'.repeat(maxRequestPathBytes)}`));
  });

  it('cleans paths like Go path.Clean', () => {
    assert.equal(canonicalPath('/docs//a.md/'), '/docs/a.md');
    assert.equal(canonicalPath('/./docs/'), '/docs');
    assert.equal(canonicalPath('/'), '/');
  });

  it('detects .. segments but not dots inside names', () => {
    assert.ok(hasDotDotSegment('/allowed/../secret.md'));
    assert.ok(!hasDotDotSegment('/a..b/c.md'));
  });

  it('recognises only lower-case 64-hex hash paths', () => {
    assert.ok(isHashPath(`/sha256-${'0'.repeat(64)}`));
    assert.ok(!isHashPath(`/sha256-${'A'.repeat(64)}`));
    assert.ok(!isHashPath(`/sha256-${'0'.repeat(63)}`));
  });

  it('splits /vN only for N >= 1', () => {
    assert.deepEqual(splitVersionSuffix('/docs/a.md/v3'), { base: '/docs/a.md', version: 3 });
    assert.equal(splitVersionSuffix('/docs/a.md/v0'), null);
    assert.equal(splitVersionSuffix('/docs/a.md/vx'), null);
    assert.equal(splitVersionSuffix('/v1'), null);
  });
});

describe('hidden entries (Mark SPEC LIST "Excluded"; the world lists by this rule, the doctor skips by it)', () => {
  it('hides dot-files, dot directories and the versions directory, and nothing else', () => {
    for (const name of ['.well-known', '.demarkus', '.drafts', '.v3.tmp-1', 'versions'])
      assert.ok(isHiddenEntry(name), name);
    for (const name of ['a.md', 'docs', 'a.b', 'version', 'Versions', 'versions.md', 'x.versions'])
      assert.ok(!isHiddenEntry(name), name);
  });

  it('finds a hidden entry at any depth of a path, but not in the root or a name with a dot inside', () => {
    assert.ok(hasHiddenSegment('/.well-known/demarkus/policy.md'));
    assert.ok(hasHiddenSegment('/a/.drafts/b.md'));
    assert.ok(hasHiddenSegment('/a/versions/b.md'));
    assert.ok(hasHiddenSegment('/a/.hidden.md'));
    assert.ok(!hasHiddenSegment('/'));
    assert.ok(!hasHiddenSegment('/index.md'));
    assert.ok(!hasHiddenSegment('/docs/a.b/c.md'));
    assert.ok(!hasHiddenSegment('/docs/versions.md'));
  });
});

describe('mark:// URLs (Mark SPEC §2.1, ADR 0018)', () => {
  it('lower-cases the host, fills the default port in dial form, omits it in identity form', () => {
    const url = parseMarkUrl('mark://Docs.Example.COM/Path/A.md#Intro');
    assert.equal(dialAuthority(url), 'docs.example.com:6309');
    assert.equal(identityUrl(url), 'mark://docs.example.com/Path/A.md');
    assert.equal(url.fragment, 'Intro');
  });

  it('keeps a non-default port in identity form and handles IPv6', () => {
    assert.equal(identityUrl(parseMarkUrl('mark://host:7000/a.md')), 'mark://host:7000/a.md');
    assert.equal(dialAuthority(parseMarkUrl('mark://[::1]:7000/a.md')), '[::1]:7000');
  });

  it('percent-decodes the path', () => {
    assert.equal(parseMarkUrl('mark://h/docs/c%20d.md').path, '/docs/c d.md');
  });

  it('rejects userinfo, bad ports and other schemes', () => {
    assert.throws(() => parseMarkUrl('mark://user@host/a.md'), MarkUrlError);
    assert.throws(() => parseMarkUrl('mark://host:99999/a.md'), MarkUrlError);
    assert.throws(() => parseMarkUrl('https://host/a.md'), MarkUrlError);
    assert.throws(() => parseMarkUrl('mark:///a.md'), MarkUrlError);
  });
});
