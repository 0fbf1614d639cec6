import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  anchorsOf,
  anchoredLinks,
  distinctLinks,
  findSection,
  markdownBlocks,
  MarkdownDocument,
  openingParagraph,
  outline,
  outlineEntries,
} from '../../src/markdown/index.ts';
import { prng } from '../support/prng.ts';

/**
 * A `MarkdownDocument` reads its body once for every view, where the functions
 * of the same names each read it again: each view must be exactly the
 * function's answer, on hand-picked bodies and on random ones made of the
 * pieces the block and inline scanners react to.
 */
const pieces = [
  '# ',
  '## ',
  '###### ',
  '#',
  ' ',
  '  ',
  '    ',
  '\t',
  '\n',
  '\n',
  '\n\n',
  '\r\n',
  'a',
  'B c',
  'Über',
  '🚀',
  '[',
  ']',
  '(',
  ')',
  '](',
  '[a](b.md)',
  '[r]',
  '[r]: /ref\n',
  '![i](p.png)',
  '`',
  '```\n',
  '~~~\n',
  '*',
  '_',
  '-',
  '---\n',
  '===\n',
  '> ',
  '- ',
  '1. ',
  '<!--',
  '-->',
  '<b>',
  '|',
  '\\',
  'x#y',
  '#frag',
  'a-1',
];

function randomBody(random: () => number): string {
  const length = Math.floor(random() * 60);
  let body = '';
  for (let i = 0; i < length; i++) body += pieces[Math.floor(random() * pieces.length)];
  return body;
}

function assertSameViews(body: string, doc = new MarkdownDocument(body)): void {
  const label = JSON.stringify(body);
  assert.deepEqual(doc.blocks, markdownBlocks(body), label);
  assert.deepEqual(doc.headings, outline(body), label);
  assert.deepEqual(doc.outlineEntries, outlineEntries(body), label);
  assert.deepEqual(doc.links, anchoredLinks(body), label);
  assert.deepEqual(doc.distinctLinks, distinctLinks(body), label);
  assert.equal(doc.openingParagraph, openingParagraph(body), label);
  assert.deepEqual(doc.anchors, anchorsOf(body), label);
  for (const wanted of [...doc.anchors, ...doc.headings.map((h) => h.text), 'missing', '#A', ''])
    assert.equal(doc.findSection(wanted), findSection(body, wanted), `${label} #${wanted}`);
}

describe('MarkdownDocument', () => {
  it('gives each function its answer on a document with every kind of block', () => {
    assertSameViews(
      '# Alpha\n\nIntro [one](a.md#x).\n\n## Details\n\n```\n# not\n```\n\n## Details\n\n- [two][r]\n\nSetext\n---\n\n[r]: /b.md\n# Next\n',
    );
  });

  it('reads the body once however many views are taken', () => {
    const doc = new MarkdownDocument('# A\n\n[x](y)\n');
    const blocks = doc.blocks;
    void doc.outlineEntries;
    void doc.distinctLinks;
    void doc.openingParagraph;
    assert.equal(doc.blocks, blocks);
    assert.equal(doc.outlineEntries, doc.outlineEntries);
  });

  it('gives each function its answer on 3,000 random bodies', () => {
    const random = prng(0x6d61726b);
    for (let i = 0; i < 3000; i++) assertSameViews(randomBody(random));
  });

  describe('with maxHeadings', () => {
    it('gives each function its answer on 3,000 random bodies that have no more headings than that', () => {
      const random = prng(0x626f756e);
      let within = 0;
      for (let i = 0; i < 3000; i++) {
        const body = randomBody(random);
        const maxHeadings = Math.floor(random() * 4);
        const doc = new MarkdownDocument(body, { maxHeadings });
        const headingBlocks = markdownBlocks(body).blocks.filter((b) => b.kind === 'heading' && b.source !== '');
        if (headingBlocks.length <= maxHeadings) {
          within++;
          assert.equal(doc.unreadHeadings, 0);
          assertSameViews(body, doc);
        } else {
          // Past the bound: the headings read are the first of the document's, the rest are counted.
          const all = outline(body);
          assert.deepEqual(doc.headings, all.slice(0, doc.headings.length), JSON.stringify(body));
          assert.ok(doc.headings.length <= maxHeadings);
          assert.equal(doc.unreadHeadings, headingBlocks.length - maxHeadings);
        }
      }
      // Both branches ran often enough to mean something.
      assert.ok(within > 300 && within < 2700, `${within} bodies within the bound`);
    });

    it('ends a section read at a heading not read, and gives no link an anchor past the headings read', () => {
      const body = '# Top\n\n## a\n\n[x](x.md)\n\n## b\n\n[y](y.md)\n\n# End\n\n[z](z.md)\n';
      const doc = new MarkdownDocument(body, { maxHeadings: 2 });
      const exact = outlineEntries(body);
      assert.deepEqual(doc.outlineEntries, exact.slice(0, 2));
      assert.equal(doc.unreadHeadings, 2);
      assert.deepEqual(
        doc.links.map((link) => [link.dest, link.anchor]),
        [
          ['x.md', 'a'],
          ['y.md', ''],
          ['z.md', ''],
        ],
      );
      assert.equal(doc.findSection('a'), findSection(body, 'a'));
      assert.equal(doc.findSection('b'), null);
      assert.deepEqual(doc.anchors, ['top', 'a']);
    });
  });
});
