import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { anchoredLinks, documentTitle as titleOf, linksAndHeadings, outline } from '../../src/markdown/index.ts';

const documentTitle = (md: string) => titleOf(outline(md));

const dests = (md: string) => anchoredLinks(md).map((l) => l.dest);

describe('anchored links (mdoutline.AnchoredLinks)', () => {
  it('gives each link its plain-text label and the anchor of the innermost section above it', () => {
    const md =
      'intro [top](t.md)\n\n# Guide\n\n## Setup *now*\n\nsee [the **B** doc](b.md "B")\n\n### Deep\n\n- [`code` label](c.md)\n\n## Setup now\n\n[again](d.md)\n';
    assert.deepEqual(anchoredLinks(md), [
      { dest: 't.md', label: 'top', anchor: '' },
      { dest: 'b.md', label: 'the B doc', anchor: 'setup-now' },
      { dest: 'c.md', label: 'code label', anchor: 'deep' },
      { dest: 'd.md', label: 'again', anchor: 'setup-now-1' },
    ]);
  });

  it('skips empty and fragment-only destinations and cuts fragments', () => {
    assert.deepEqual(dests('[a]() [b](#top) [c](c.md#part) [](empty.md)'), ['c.md', 'empty.md']);
  });

  it('resolves full, collapsed and shortcut reference links through their definitions', () => {
    const md = 'See [one][r], [Two][] and [three].\n\n[r]: one.md\n[two]: <two words.md>\n[THREE]: three.md "title"\n';
    assert.deepEqual(
      anchoredLinks(md).map((l) => [l.dest, l.label]),
      [
        ['one.md', 'one'],
        ['two words.md', 'Two'],
        ['three.md', 'three'],
      ],
    );
  });

  it('ignores links in fenced and indented code, code spans, images and autolinks', () => {
    const md =
      '```\n[f](fenced.md)\n```\n\n    [i](indented.md)\n\n`[s](span.md)` ![img](pic.png) <mark://w/auto.md> [real](real.md)\n';
    assert.deepEqual(dests(md), ['real.md']);
  });

  it('keeps a link whose text is an image, labeled with the alt text', () => {
    assert.deepEqual(anchoredLinks('[![Logo](logo.png)](home.md)'), [{ dest: 'home.md', label: 'Logo', anchor: '' }]);
  });

  it('lets an inner link win over an outer one (links do not nest)', () => {
    assert.deepEqual(dests('[outer [inner](in.md) text](out.md) [next](next.md)'), ['in.md', 'next.md']);
  });

  it('reads escapes, angle destinations, titles and balanced parentheses', () => {
    assert.deepEqual(dests('[a\\]b](x\\(1\\).md) [c](<d e.md> "t") [f](g(1).md) [h](i.md \'t\')'), [
      'x(1).md',
      'd e.md',
      'g(1).md',
      'i.md',
    ]);
  });

  it('finds links in list items indented under a list, not as code', () => {
    assert.deepEqual(dests('1. item\n\n    continued [x](x.md)\n'), ['x.md']);
  });

  it('joins a label broken over lines without a space, as goldmark does', () => {
    assert.deepEqual(
      anchoredLinks('[multi\nline](m.md)').map((l) => l.label),
      ['multiline'],
    );
  });

  it('skips comments, and reads on past an opening that nothing closes', () => {
    assert.deepEqual(dests('x <!-- a --> [x](x.md) <!-- [y](y.md) --> [z](z.md) <!-- [w](w.md) <!-- [v](v.md)'), [
      'x.md',
      'z.md',
      'w.md',
      'v.md',
    ]);
  });

  it('stays linear on hostile input', () => {
    const hostile =
      '['.repeat(50_000) +
      '](('.repeat(50_000) +
      '`'.repeat(3) +
      'x'.repeat(10) +
      '[a](b.md)\n\n' +
      '[x]("'.repeat(50_000);
    const started = process.hrtime.bigint();
    const links = anchoredLinks(hostile);
    assert.ok(Array.isArray(links));
    assert.ok(process.hrtime.bigint() - started < 30_000_000_000n, 'finishes');
  });

  it('extracts every link of a 1 MiB document', () => {
    const line = '- [Doc](d.md) and [other](o.md)\n';
    const md = line.repeat(Math.floor(1_048_576 / line.length));
    assert.equal(anchoredLinks(md).length, 2 * Math.floor(1_048_576 / line.length));
  });
});

describe('links scanned up to a bound (the link graph, src/broker/graph/graph-bounds.ts)', () => {
  const scan = (md: string, maxLinks: number) => {
    const { links, cut } = linksAndHeadings(md, maxLinks);
    return { dests: links.map((l) => l.dest), cut };
  };

  it('stops after that many link occurrences, fragment-only ones included, and says it was cut', () => {
    // The third link of the paragraph is past the bound: the answer must not look whole without it.
    assert.deepEqual(scan('[a](#x) [b](#y) [c](c.md)\n\n[d](d.md)\n', 2), { dests: [], cut: true });
    assert.deepEqual(scan('[a](#x) [b](b.md)\n\n[c](c.md) [d](d.md)\n', 3), { dests: ['b.md', 'c.md'], cut: true });
  });

  it('is not cut when every link fits', () => {
    assert.deepEqual(scan('[a](#x) [b](b.md)\n\n[c](c.md)\n', 4), { dests: ['b.md', 'c.md'], cut: false });
  });
});

describe('document title (links.ExtractTitle)', () => {
  it('is the text of the first level-1 heading', () => {
    assert.equal(documentTitle('## Sub\n\n# The *Real* Title\n\n# Second\n'), 'The Real Title');
    assert.equal(documentTitle('Setext\n======\n'), 'Setext');
  });

  it('is empty without a level-1 heading', () => {
    assert.equal(documentTitle('## Only h2\n\ntext\n'), '');
  });
});
