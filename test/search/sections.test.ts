import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnchorSlugger, githubSlug, plainText } from '../../src/markdown/index.ts';
import { splitSections } from '../../src/search/index.ts';

const anchors = (body: string): string[] => splitSections(body).map((s) => s.anchor);

describe('heading anchors (Go `bodymatch.go`, GitHub slug)', () => {
  it('lowercases, keeps letters, numbers, _ and -, turns spaces into - and drops the rest', () => {
    assert.equal(githubSlug('Hello, World_2 — A-B!'), 'hello-world_2--a-b');
    assert.equal(githubSlug('Café Ü'), 'café-ü');
  });

  it('slugs the heading source: tags vanish, link text stays, whitespace is not collapsed', () => {
    assert.equal(githubSlug(plainText('a<b>c</b> [link](http://x) `code`')), 'ac-link-code');
    assert.equal(githubSlug('a  b'), 'a--b');
    assert.deepEqual(anchors('## Setup  *steps*\n'), ['setup--steps']);
  });

  it('suffixes duplicates with -1, -2', () => {
    assert.deepEqual(anchors('# A\n## A\n### A\n'), ['a', 'a-1', 'a-2']);
  });

  it('counts generated suffixes as taken', () => {
    assert.deepEqual(anchors('# A\n# A\n# A-1\n'), ['a', 'a-1', 'a-1-1']);
    const slugger = new AnchorSlugger();
    assert.deepEqual(
      ['a-1', 'a', 'a'].map((h) => slugger.slug(h)),
      ['a-1', 'a', 'a-2'],
    );
  });

  it('gives a heading with nothing to slug the empty anchor, as GitHub does', () => {
    assert.deepEqual(anchors('# ???\n# 🚀\n'), ['', '-1']);
  });
});

describe('sections (Go `bodymatch.go`)', () => {
  it('recognises ATX headings with up to three spaces of indent and closing hashes', () => {
    const s = splitSections('   ## Setup ##\ntext\n    # indented code\n#NoSpace\n');
    assert.deepEqual(
      s.map((x) => [x.heading, x.level]),
      [['Setup', 2]],
    );
    assert.equal(s[0]?.text, 'text\n# indented code\n#NoSpace');
  });

  it('recognises setext headings and keeps a thematic break out of them', () => {
    const s = splitSections('Title\n=====\nbody\n\n---\nSub\n---\nmore\n');
    assert.deepEqual(
      s.map((x) => [x.heading, x.level, x.text]),
      [
        ['Title', 1, 'body'],
        ['Sub', 2, 'more'],
      ],
    );
  });

  it('takes no heading from inside a fenced block, backtick or tilde', () => {
    const s = splitSections('# Real\n```sh\n# not a heading\n```\n~~~~\n## nor this\n~~~\nstill code\n~~~~\nafter\n');
    assert.deepEqual(
      s.map((x) => x.heading),
      ['Real'],
    );
    assert.equal(s[0]?.text, '# not a heading\n## nor this\n~~~\nstill code\nafter');
  });

  it('opens with a bare section only when text remains after stripping markup', () => {
    assert.deepEqual(anchors('Intro line\n# H\n'), ['', 'h']);
    assert.deepEqual(anchors('<!-- note -->\n\n| --- |\n# H\n'), ['h']);
  });

  it('builds the heading trail from the heading and its ancestors', () => {
    const s = splitSections('# A\n## B\n### C\n## D\n');
    assert.deepEqual(
      s.map((x) => x.trail),
      [['A'], ['A', 'B'], ['A', 'B', 'C'], ['A', 'D']],
    );
  });

  it('ends a section at the next heading of any level', () => {
    const s = splitSections('## One\nfirst\n#### Two\nsecond\n# Three\nthird\n');
    assert.deepEqual(
      s.map((x) => x.text),
      ['first', 'second', 'third'],
    );
  });

  it('strips list, quote and table markers, link targets, HTML tags and emphasis', () => {
    const body = [
      '# H',
      '- [ ] **bold** item',
      '1. _first_ step',
      '> quoted `code`',
      '| a | b |',
      '|---|:-:|',
      'see [the docs](https://example.com/x) and [[wiki-node]] ![alt](i.png)',
      '<span class="x">tagged</span> ~~gone~~ snake_case',
      '[ref]: https://example.com',
    ].join('\n');
    assert.equal(
      splitSections(body)[0]?.text,
      'bold item\nfirst step\nquoted code\na b\nsee the docs and wiki-node alt\ntagged gone snake_case',
    );
  });

  it('strips inline markup from the heading text the anchor is made from', () => {
    const s = splitSections('## The `spex search` *verb*\n');
    assert.equal(s[0]?.heading, 'The spex search verb');
    assert.equal(s[0]?.anchor, 'the-spex-search-verb');
  });
});
