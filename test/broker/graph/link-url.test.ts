import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalMarkUrl,
  documentUrl,
  resolveLinkTarget,
  resolveReference,
} from '../../../src/broker/graph/link-url.ts';

describe('reference resolution (RFC 3986 §5.4)', () => {
  const base = 'http://a/b/c/d;p?q';
  // §5.4.1 normal and §5.4.2 abnormal examples; fragments are cut (links never keep them).
  const examples: Array<[string, string]> = [
    ['g:h', 'g:h'],
    ['g', 'http://a/b/c/g'],
    ['./g', 'http://a/b/c/g'],
    ['g/', 'http://a/b/c/g/'],
    ['/g', 'http://a/g'],
    ['//g', 'http://g'],
    ['?y', 'http://a/b/c/d;p?y'],
    ['g?y', 'http://a/b/c/g?y'],
    ['#s', 'http://a/b/c/d;p?q'],
    [';x', 'http://a/b/c/;x'],
    ['', 'http://a/b/c/d;p?q'],
    ['.', 'http://a/b/c/'],
    ['./', 'http://a/b/c/'],
    ['..', 'http://a/b/'],
    ['../', 'http://a/b/'],
    ['../g', 'http://a/b/g'],
    ['../..', 'http://a/'],
    ['../../', 'http://a/'],
    ['../../g', 'http://a/g'],
    ['../../../g', 'http://a/g'],
    ['../../../../g', 'http://a/g'],
    ['/./g', 'http://a/g'],
    ['/../g', 'http://a/g'],
    ['g.', 'http://a/b/c/g.'],
    ['.g', 'http://a/b/c/.g'],
    ['g..', 'http://a/b/c/g..'],
    ['..g', 'http://a/b/c/..g'],
    ['./../g', 'http://a/b/g'],
    ['./g/.', 'http://a/b/c/g/'],
    ['g/./h', 'http://a/b/c/g/h'],
    ['g/../h', 'http://a/b/c/h'],
    ['g;x=1/./y', 'http://a/b/c/g;x=1/y'],
    ['g;x=1/../y', 'http://a/b/c/y'],
  ];
  for (const [reference, expected] of examples) {
    it(`resolves ${JSON.stringify(reference)} to ${expected}`, () =>
      assert.equal(resolveReference(base, reference), expected));
  }
});

describe('graph identities of link targets', () => {
  const doc = 'mark://team-a/docs/a.md';

  it('resolves relative, root-relative and network-path links against the document', () => {
    assert.equal(resolveLinkTarget(doc, 'b.md'), 'mark://team-a/docs/b.md');
    assert.equal(resolveLinkTarget(doc, '../index.md'), 'mark://team-a/index.md');
    assert.equal(resolveLinkTarget(doc, '/x/y.md'), 'mark://team-a/x/y.md');
    assert.equal(resolveLinkTarget(doc, '//team-b/c.md'), 'mark://team-b/c.md');
  });

  it('puts mark:// targets in identity form', () => {
    assert.equal(resolveLinkTarget(doc, 'MARK://Team-B:6309/p/./q.md?x=1'), 'mark://team-b/p/q.md');
    assert.equal(resolveLinkTarget(doc, 'mark://host:7000/a%2fb%41.md'), 'mark://host:7000/a%2FbA.md');
    assert.equal(resolveLinkTarget(doc, 'c d|e.md'), 'mark://team-a/docs/c%20d%7Ce.md');
    assert.equal(resolveLinkTarget(doc, 'über.md'), 'mark://team-a/docs/%C3%BCber.md');
  });

  it('removes dot segments spelled with percent-encoded dots, so they name the same node (RFC 3986 §6.2.2)', () => {
    assert.equal(resolveLinkTarget(doc, '%2e%2e/index.md'), 'mark://team-a/index.md');
    assert.equal(resolveLinkTarget(doc, '%2E/b.md'), 'mark://team-a/docs/b.md');
    assert.equal(canonicalMarkUrl('mark://team-a/x/%2e%2E/%2e%2e/b.md'), 'mark://team-a/b.md');
    assert.equal(canonicalMarkUrl('mark://team-a/x/.%2e/y.md'), 'mark://team-a/y.md');
  });

  it('cleans the path as the world does: empty segments and a trailing slash name the same document', () => {
    assert.equal(canonicalMarkUrl('mark://team-a//docs///a.md/'), 'mark://team-a/docs/a.md');
    assert.equal(resolveLinkTarget(doc, 'sub/'), 'mark://team-a/docs/sub');
    assert.equal(canonicalMarkUrl('mark://team-a'), 'mark://team-a/');
    assert.equal(canonicalMarkUrl('mark://team-a//'), 'mark://team-a/');
  });

  it('keeps other schemes as written, minus fragment, with table-breaking characters encoded', () => {
    assert.equal(resolveLinkTarget(doc, 'https://Example.com/A?b=1#frag'), 'https://Example.com/A?b=1');
    assert.equal(resolveLinkTarget(doc, 'https://x.y/a b|c'), 'https://x.y/a%20b%7Cc');
    assert.equal(resolveLinkTarget(doc, 'mailto:someone@example.com'), 'mailto:someone@example.com');
  });

  it('refuses mark:// URLs with userinfo, an empty host or a bad port', () => {
    assert.equal(canonicalMarkUrl('mark://user@team-a/x.md'), null);
    assert.equal(canonicalMarkUrl('mark:///x.md'), null);
    assert.equal(canonicalMarkUrl('mark://team-a:99999/x.md'), null);
    assert.equal(canonicalMarkUrl('https://team-a/x.md'), null);
  });

  it('encodes a raw request path for a document URL, literal percent signs included', () => {
    assert.equal(documentUrl('team-a', '/docs/c d.md'), 'mark://team-a/docs/c%20d.md');
    assert.equal(documentUrl('team-a', '/100%41.md'), 'mark://team-a/100%2541.md');
    assert.equal(documentUrl('team-a', '/docs/c d.md'), canonicalMarkUrl('mark://team-a/docs/c%20d.md'));
  });
});
