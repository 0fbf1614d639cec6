import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WorldDirectory, documentLinks, resolveLinkTarget } from '../../src/broker/graph/index.ts';
import { findSection, MarkdownDocument } from '../../src/markdown/index.ts';
import { linkLines, outlineLines } from '../../src/broker/mcp/outline-text.ts';
import { splitSections } from '../../src/search/index.ts';

/**
 * One answer for every input: the anchors mark_fetch's outline shows, the
 * anchors search hits point to, the links mark_explore lists and the edges the
 * link graph records, for the Markdown that used to split them. Each case
 * states the expected anchors and link destinations (GitHub's rendering is the
 * reference); the assertions then check every reader against them.
 */
type Case = { name: string; markdown: string; anchors: string[]; links: string[] };

const cases: Case[] = [
  {
    name: 'a heading with nothing to slug, twice',
    markdown: '# 🚀\n\nfirst [a](a.md)\n\n# 🚀\n\nsecond\n',
    anchors: ['', '-1'],
    links: ['a.md'],
  },
  {
    name: 'duplicate headings and generated suffixes',
    markdown: '# Setup\n## Setup\n# Setup-1\n## Setup\n',
    anchors: ['setup', 'setup-1', 'setup-1-1', 'setup-2'],
    links: [],
  },
  {
    name: 'emoji, CJK and combining marks',
    markdown: '# 🚀 Launch plan\n## 日本語の見出し\n## हिन्दी\n## Café Ü\n',
    anchors: ['-launch-plan', '日本語の見出し', 'हिन्दी', 'café-ü'],
    links: [],
  },
  {
    name: 'inline markup in headings renders away',
    markdown: '## The `spex search` *verb*\n## _Emphasis_ and snake_case\n## See [the docs](docs.md)\n',
    anchors: ['the-spex-search-verb', 'emphasis-and-snake_case', 'see-the-docs'],
    links: ['docs.md'],
  },
  {
    name: 'escaped and nested brackets',
    markdown: '# Links\n\\[not a link\\](x.md) and [a [nested] label](n.md) and [a \\] b](e.md)\n',
    anchors: ['links'],
    links: ['n.md', 'e.md'],
  },
  {
    name: 'code spans, fences and indented code hold no links or headings',
    markdown:
      '# Code\n\n`[x](span.md)`\n\n```md\n# not a heading\n[y](fence.md)\n```\n\n    [z](indented.md)\n\n[real](real.md)\n',
    anchors: ['code'],
    links: ['real.md'],
  },
  {
    name: 'HTML comments, on one line and across a blank line',
    markdown: '# Notes\n<!-- [one](c1.md) -->\n\n<!--\n# hidden\n\n[two](c2.md)\n-->\n\n[kept](k.md)\n',
    anchors: ['notes'],
    links: ['k.md'],
  },
  {
    name: 'reference links: full, collapsed and shortcut',
    markdown: '# Refs\n[text][r1], [R2][] and [r3]\n\n[r1]: one.md\n[r2]: <two.md>\n[R3]: three.md "title"\n',
    anchors: ['refs'],
    links: ['one.md', 'two.md', 'three.md'],
  },
  {
    name: 'autolinks and images are not links',
    markdown: '# Auto\n<https://example.com/x> ![logo](logo.png) [![badge](b.png)](target.md)\n',
    anchors: ['auto'],
    links: ['target.md'],
  },
  {
    name: 'setext headings, multi-line and after a thematic break',
    markdown: 'Intro [i](i.md)\n\nTitle\nsecond line\n===\nbody\n\n---\nSub\n---\n[s](s.md#part)\n',
    anchors: ['title-second-line', 'sub'],
    links: ['i.md', 's.md'],
  },
  {
    name: 'links under list items and quotes, fragments cut, fragment-only dropped',
    markdown: '# List\n- [one](l1.md#x)\n- item\n\n  [cont](l2.md)\n> [quoted](q.md)\n\n[self](#list) [again](l1.md)\n',
    anchors: ['list'],
    links: ['l1.md', 'l2.md', 'q.md'],
  },
];

const docUrl = 'mark://w/dir/doc.md';
const worlds = new WorldDirectory([{ name: 'w', address: '127.0.0.1:6309', source: 'config' }]);

describe('one Markdown answer across outline, search, explore and graph', () => {
  for (const c of cases) {
    it(c.name, () => {
      const outlineAnchors = outlineLines(new MarkdownDocument(c.markdown)).map(
        (line) => /\(#([^,]*), \d+ lines\)$/.exec(line)?.[1],
      );
      assert.deepEqual(outlineAnchors, c.anchors, 'mark_fetch outline');

      const searchAnchors = splitSections(c.markdown)
        .filter((section) => section.level > 0)
        .map((section) => section.anchor);
      assert.deepEqual(searchAnchors, c.anchors, 'search section anchors');
      for (const anchor of searchAnchors.filter((a) => a !== ''))
        assert.notEqual(findSection(c.markdown, anchor), null, `mark_fetch cuts #${anchor}`);

      const exploreDests = linkLines(new MarkdownDocument(c.markdown)).map((line) =>
        /^- (?:\[.*\]\((.*)\)|(.*))$/.exec(line)!.slice(1).join(''),
      );
      assert.deepEqual(exploreDests, c.links, 'mark_explore links');

      const graph = documentLinks(docUrl, c.markdown, {}, worlds);
      const edgeTargets = [...new Set(graph.edges.map((edge) => edge.to))];
      assert.deepEqual(
        edgeTargets,
        c.links.map((dest) => resolveLinkTarget(docUrl, dest)),
        'graph edges',
      );
      for (const edge of graph.edges) assert.ok(edge.anchor === '' || c.anchors.includes(edge.anchor), edge.anchor);
    });
  }
});
