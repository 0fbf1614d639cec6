import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findSection, githubSlug as anchorSlug, outline } from '../../src/markdown/index.ts';

const doc =
  '# Alpha\n\nIntro.\n\n## Details\n\nSee it.\n\n```\n# not a heading\n```\n\n## Details\n\nAgain.\n\nSetext Title\n------------\n\nText.\n\n# Next Top\n';

describe('markdown outline (GitHub anchors)', () => {
  it('lists ATX and setext headings, skipping fenced code', () => {
    assert.deepEqual(
      outline(doc).map((h) => [h.level, h.text, h.anchor]),
      [
        [1, 'Alpha', 'alpha'],
        [2, 'Details', 'details'],
        [2, 'Details', 'details-1'],
        [2, 'Setext Title', 'setext-title'],
        [1, 'Next Top', 'next-top'],
      ],
    );
  });

  it('makes GitHub slugs: lower-case, punctuation dropped, spaces to dashes', () => {
    assert.equal(anchorSlug('Hello, World! (v2)'), 'hello-world-v2');
    assert.equal(anchorSlug('Über café'), 'über-café');
    assert.equal(anchorSlug('snake_case and-dash'), 'snake_case-and-dash');
  });

  it('slices a section up to the next heading of the same or higher level', () => {
    // Byte for byte: the blank line before the next heading belongs to the section.
    assert.equal(findSection(doc, '#details-1'), '## Details\n\nAgain.\n\n');
    assert.equal(findSection(doc, 'alpha')?.includes('## Details'), true);
    assert.equal(findSection(doc, 'Details'), '## Details\n\nSee it.\n\n```\n# not a heading\n```\n\n');
    assert.equal(findSection(doc, 'missing'), null);
  });
});
