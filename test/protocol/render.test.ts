import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renderList } from '../../src/protocol/render/list.ts';
import { renderVersions } from '../../src/protocol/render/versions.ts';
import { renderLookup } from '../../src/protocol/render/lookup.ts';
import { escapeMarkdown, formatFixed2, pathEscape } from '../../src/protocol/escape.ts';

describe('renderers (Mark SPEC §6.2, §6.3, §6.7)', () => {
  it('renders the LIST golden of case 9', () => {
    const body = renderList(
      '/docs',
      [
        { name: 'a.md', kind: 'document' },
        { name: 'b.md', kind: 'document' },
        { name: 'sub', kind: 'directory' },
      ],
      true,
    );
    assert.equal(body, '\n# Index of /docs/\n\n- [a.md](a.md)\n- [b.md](b.md)\n- [sub/](sub/)\n');
  });

  it('renders the truncated LIST golden of case 10', () => {
    assert.equal(
      renderList('/docs', [{ name: 'a.md', kind: 'document' }], false),
      '\n# Index of /docs/\n\n- [a.md](a.md)\n\n*...truncated, too many entries*\n',
    );
  });

  it('escapes names and percent-encodes link targets', () => {
    const body = renderList('/', [{ name: 'c d_[x].md', kind: 'document' }], true);
    assert.equal(body, '\n# Index of /\n\n- [c d\\_\\[x\\].md](c%20d_%5Bx%5D.md)\n');
  });

  it('renders VERSIONS newest first with %2F-escaped links (case 12)', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const body = renderVersions(
      '/docs/a.md',
      [1, 2, 3].map((version) => ({ version, modified: at })),
    );
    assert.equal(
      body,
      '\n# Version History: /docs/a.md\n\n- [v3](%2Fdocs%2Fa.md/v3) - 2026-01-01T00:00:00Z\n- [v2](%2Fdocs%2Fa.md/v2) - 2026-01-01T00:00:00Z\n- [v1](%2Fdocs%2Fa.md/v1) - 2026-01-01T00:00:00Z\n',
    );
  });

  it('renders the catalog LOOKUP golden of case 13', () => {
    const body = renderLookup('alpha beta', '/', 'catalog', [
      { path: '/docs/a.md', importance: 0.7, title: 'Alpha', tags: ['alpha', 'wire'] },
      { path: '/docs/b.md', importance: 0.4, title: 'Beta | piped', tags: ['beta'] },
    ]);
    assert.equal(
      body,
      '\n# Lookup matches for "alpha beta" in /\n\n| Path | Importance | Title | Tags |\n|------|------------|-------|------|\n| /docs/a.md | 0.70 | Alpha | alpha, wire |\n| /docs/b.md | 0.40 | Beta \\| piped | beta |\n',
    );
  });

  it('renders a body-match row with anchor and snippet (case 14)', () => {
    const body = renderLookup('appended', '/', 'body', [
      {
        path: '/docs/a.md',
        anchor: 'appended',
        importance: 0.7,
        title: 'Alpha › Appended',
        tags: ['alpha', 'wire'],
        snippet: 'More.',
      },
    ]);
    assert.ok(
      body.endsWith(
        '| Path | Importance | Title | Tags | Snippet |\n|------|------------|-------|------|---------|\n| /docs/a.md#appended | 0.70 | Alpha › Appended | alpha, wire | More. |\n',
      ),
    );
  });

  it('escapes every markdown special character', () => {
    assert.equal(escapeMarkdown('\\[]()*_`~#|'), '\\\\\\[\\]\\(\\)\\*\\_\\`\\~\\#\\|');
  });

  it('percent-encodes like Go url.PathEscape', () => {
    assert.equal(pathEscape('/docs/a b!.md'), '%2Fdocs%2Fa%20b%21.md');
    assert.equal(pathEscape('a$&+:=@-_.~'), 'a$&+:=@-_.~');
  });

  it('formats importance with ties to even, like Go %.2f', () => {
    assert.equal(formatFixed2(0.125), '0.12');
    assert.equal(formatFixed2(0.375), '0.38');
    assert.equal(formatFixed2(0.7), '0.70');
    assert.equal(formatFixed2(0.5), '0.50');
  });
});
