import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entryFromDocument, firstH1, pathBase, resolveTitle } from '../../../src/world/catalog/entry.ts';

const modified = new Date('2026-01-02T03:04:05Z');

describe('title derivation (Go `catalog/entry.go`, entry.go resolveTitle)', () => {
  it('uses the declared title, trimmed, over any heading', () => {
    assert.equal(resolveTitle('  Auth design \t', '# Heading\n', '/docs/x.md'), 'Auth design');
  });

  it('falls back to the first H1 when the declared title is blank', () => {
    assert.equal(resolveTitle('   ', '# Heading\n', '/docs/x.md'), 'Heading');
    assert.equal(resolveTitle(undefined, '# Heading\n', '/docs/x.md'), 'Heading');
  });

  it('falls back to the base name when there is no title and no H1', () => {
    assert.equal(resolveTitle(undefined, 'no heading here\n', '/docs/x.md'), 'x.md');
    assert.equal(resolveTitle(undefined, '', '/docs/sub c d.md'), 'sub c d.md');
  });

  it('takes the first of several H1s, trimmed', () => {
    assert.equal(firstH1('intro\n#   Spacey   \n# Second\n'), 'Spacey');
  });

  it('accepts up to three leading spaces before the hash', () => {
    assert.equal(firstH1('   # Indented Three\n'), 'Indented Three');
    assert.equal(firstH1(' # One\n'), 'One');
  });

  it('ignores a line indented with four spaces or a tab (indented code)', () => {
    assert.equal(firstH1('    # indented\n\t# tabbed\n# Real Title\n'), 'Real Title');
    assert.equal(firstH1('    # indented only\n'), '');
  });

  it('ignores headings inside ``` and ~~~ fences, with or without an info string', () => {
    assert.equal(firstH1('```\n# install\n```\n# Real Title\n'), 'Real Title');
    assert.equal(firstH1('~~~\n# nope\n~~~\n# Real Title\n'), 'Real Title');
    assert.equal(firstH1('```sh\n# comment\n```\n# Real Title\n'), 'Real Title');
    assert.equal(firstH1('```\n# only fenced\n```\n'), '');
  });

  it('lets any fence line close a fence, as the Go scanner does', () => {
    assert.equal(firstH1('```\n# a\n~~~\n# After\n'), 'After');
  });

  it('requires exactly one hash followed by a space', () => {
    assert.equal(firstH1('#Title\n## Sub\n#\tTabbed\n'), '');
    assert.equal(firstH1('#NoSpace\n# Yes Space\n'), 'Yes Space');
  });

  it('does not use setext headings', () => {
    assert.equal(firstH1('Setext Title\n============\n\nbody\n'), '');
    assert.equal(resolveTitle(undefined, 'Setext Title\n===\n', '/notes/s.md'), 's.md');
  });

  it('reads CRLF bodies, since the line is trimmed before it is tested', () => {
    assert.equal(firstH1('\r\n# Windows\r\nbody\r\n'), 'Windows');
  });
});

describe('pathBase (Go path.Base)', () => {
  it('returns the last element, ignoring trailing slashes', () => {
    assert.equal(pathBase('/docs/a.md'), 'a.md');
    assert.equal(pathBase('/docs/'), 'docs');
    assert.equal(pathBase('/'), '/');
    assert.equal(pathBase(''), '.');
  });
});

describe('entryFromDocument (entry.go FromDocument)', () => {
  const source = {
    path: '/docs/auth.md',
    body: '# Ignored\nbody',
    metadata: { tags: 'go, auth, ,', importance: '0.8', title: 'Auth design', project: 'broker' },
    modified,
  };

  it('derives tags, importance, title and keeps the metadata', () => {
    const entry = entryFromDocument(source);
    assert.deepEqual(entry.tags, ['go', 'auth']);
    assert.equal(entry.importance, 0.8);
    assert.equal(entry.title, 'Auth design');
    assert.equal(entry.metadata.project, 'broker');
    assert.equal(entry.modified.getTime(), modified.getTime());
  });

  it('defaults importance to 0.5 when absent or out of range', () => {
    assert.equal(entryFromDocument({ ...source, metadata: {} }).importance, 0.5);
    assert.equal(entryFromDocument({ ...source, metadata: { importance: '1.5' } }).importance, 0.5);
    assert.equal(entryFromDocument({ ...source, metadata: { importance: 'high' } }).importance, 0.5);
  });

  it('copies the metadata, so later changes to the caller map do not leak in', () => {
    const metadata: Record<string, string> = { project: 'broker' };
    const entry = entryFromDocument({ ...source, metadata });
    metadata.project = 'mutated';
    assert.equal(entry.metadata.project, 'broker');
  });

  it('returns a frozen entry', () => {
    const entry = entryFromDocument(source);
    assert.ok(Object.isFrozen(entry) && Object.isFrozen(entry.tags) && Object.isFrozen(entry.metadata));
  });
});
