import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  findSection,
  githubSlug as anchorSlug,
  markdownBlocks,
  outline,
  outlineEntries,
  plainText,
} from '../../src/markdown/index.ts';

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

  it('ends each section at the next heading of the same or a higher level', () => {
    assert.deepEqual(
      outlineEntries('# A\n## B\n### C\n## D\n# E\n').map((e) => [e.anchor, e.endLine, e.lineCount]),
      [
        ['a', 4, 4],
        ['b', 3, 2],
        ['c', 3, 1],
        ['d', 4, 1],
        ['e', 6, 1],
      ],
    );
  });
});

/** The kind, level and source of each block of `md`. */
const blockShapes = (md: string) =>
  markdownBlocks(md).blocks.map((b) => (b.kind === 'heading' ? [b.kind, b.level, b.source] : [b.kind, b.lines.length]));

describe('ATX headings (CommonMark §4.2), read without backtracking', () => {
  it('drops a closing sequence only when a space or tab precedes it and only spaces or tabs follow', () => {
    const cases: Array<[string, string]> = [
      ['# foo ##', 'foo'],
      ['#\tfoo\t#\t', 'foo'],
      ['# foo#', 'foo#'],
      ['# foo \\#', 'foo \\#'],
      ['# foo ## bar', 'foo ## bar'],
      ['#  #x #  ', '#x'],
      // U+00A0 is not a space or tab: no closing sequence, and no trailing space to strip before it.
      ['# foo #\u00a0', 'foo #'],
    ];
    for (const [line, source] of cases) assert.deepEqual(blockShapes(line), [['heading', 1, source]], line);
  });

  it('gives an empty heading for a bare opening or a closing sequence alone', () => {
    assert.deepEqual(blockShapes('#'), [['heading', 1, '']]);
    assert.deepEqual(blockShapes('### ###'), [['heading', 3, '']]);
    assert.deepEqual(blockShapes('## \t##\t'), [['heading', 2, '']]);
  });

  it('needs a space or tab after one to six #, and no line terminator after the opening', () => {
    assert.deepEqual(blockShapes('#foo'), [['paragraph', 1]]);
    assert.deepEqual(blockShapes('####### x'), [['paragraph', 1]]);
    assert.deepEqual(blockShapes('# a\rb'), [['paragraph', 1]]);
    assert.deepEqual(blockShapes('# a\u2028b'), [['paragraph', 1]]);
  });
});

describe('fences and setext underlines', () => {
  it('opens a fence unless a backtick fence has a backtick in its info string or the line holds a terminator', () => {
    assert.deepEqual(blockShapes('```js\ncode\n```\n'), [['code', 1]]);
    assert.deepEqual(blockShapes('~~~ a ` b\nx\n~~~\n'), [['code', 1]]);
    assert.deepEqual(blockShapes('``` a ` b\nx\n```\n'), [
      ['paragraph', 2],
      ['code', 0],
    ]);
    assert.deepEqual(blockShapes('```\u2028info\n```\n'), [
      ['paragraph', 1],
      ['code', 0],
    ]);
  });

  it('does not make a heading of a paragraph holding a table row, however many underlines follow', () => {
    assert.deepEqual(blockShapes('a\nb\n===\n'), [['heading', 1, 'a b']]);
    assert.deepEqual(blockShapes('a\n| b\n===\n===\n'), [['paragraph', 4]]);
    assert.deepEqual(blockShapes('a\n| b\nc\n===\n\nd\n===\n'), [
      ['paragraph', 4],
      ['heading', 1, 'd'],
    ]);
    assert.deepEqual(blockShapes('| a\n---\n'), [
      ['paragraph', 1],
      ['break', 1],
    ]);
  });
});

describe('plain text of inline markdown', () => {
  it('keeps the text of links and images, escaped brackets included, and nothing of their targets', () => {
    assert.equal(plainText('![alt](i.png) and [t](u)'), 'alt and t');
    assert.equal(plainText('[a \\] b](x)'), 'a ] b');
    assert.equal(plainText('[a][b] [c][]'), 'a c');
    assert.equal(plainText('[[a](b)](c)'), '[a](c)');
    assert.equal(plainText('![a [b](c)](d)'), 'a b');
  });

  it('leaves brackets that close nothing as they are', () => {
    assert.equal(plainText('\\[a\\](b)'), '[a](b)');
    assert.equal(plainText('[a](b'), '[a](b');
    // A backslash before a line break escapes nothing: the label ends there.
    assert.equal(plainText('[a\\\nb](x)'), '[a\\b](x)');
  });

  it('drops comments, across lines too, and keeps an opening that nothing closes', () => {
    assert.equal(plainText('a<!-- x -->b'), 'ab');
    assert.equal(plainText('a<!-- x\n y -->b'), 'ab');
    assert.equal(plainText('<!-- a --> <!-- b'), '<!-- b');
    assert.equal(plainText('x <!-- --> y -->'), 'x  y -->');
  });

  it('joins soft line breaks with the spaces and tabs around them', () => {
    assert.equal(plainText('a  \n  b'), 'ab');
    assert.equal(plainText('a \t\n \n\t b'), 'ab');
    assert.equal(plainText('a  b'), 'a  b');
  });
});
