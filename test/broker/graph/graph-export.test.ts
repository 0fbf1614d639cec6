import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  buildExport,
  parseExport,
  type ExportEdge,
  type ExportNode,
  type ParsedExport,
} from '../../../src/broker/graph/graph-export.ts';

const golden = readFileSync(new URL('./testdata/graph-export-incluster.md', import.meta.url), 'utf8');
const exportedAt = new Date('2026-01-01T00:00:00Z');
const host = 'mark://team-a.team-a.svc.cluster.local';

// Go client/internal/fedcrawl/testdata/graph-export-incluster.md: the federation agent's in-cluster golden, nodes and edges given out of order.
const goldenNodes: ExportNode[] = [
  { url: `${host}/index.md`, title: 'Team A hub', status: 'ok', linkCount: 1 },
  { url: `${host}/docs/b.md`, title: 'B doc', status: 'ok', linkCount: 0 },
  { url: `${host}/docs/a.md`, title: 'Applications', status: 'ok', linkCount: 2 },
];
const goldenEdges: ExportEdge[] = [
  { from: `${host}/index.md`, to: `${host}/docs/a.md`, rel: '', label: 'Applications', anchor: 'services', count: 1 },
  { from: `${host}/docs/b.md`, to: `${host}/docs/a.md`, rel: 'supersedes', label: '', anchor: '', count: 1 },
  { from: `${host}/docs/a.md`, to: `${host}/docs/b.md`, rel: '', label: 'B doc', anchor: 'links', count: 2 },
];

describe('/graph.md export (BuildExport)', () => {
  it('reproduces the reference golden byte for byte', () => {
    const body = buildExport(exportedAt, goldenNodes, goldenEdges);
    assert.equal(body, golden.replace('GOLDEN', '2026-01-01T00:00:00Z'));
  });

  it('renders only the header and node table for an empty graph', () => {
    assert.equal(
      buildExport(exportedAt, [], []),
      '# Document Graph\n\n> Exported: 2026-01-01T00:00:00Z\n> Nodes: 0\n> Edges: 0\n\n## Nodes\n\n| URL | Title | Status | Links |\n|-----|-------|--------|-------|\n',
    );
  });

  it('omits the edge section when there are nodes but no edges', () => {
    const body = buildExport(exportedAt, goldenNodes, []);
    assert.ok(!body.includes('## Edges'));
    assert.ok(body.endsWith('| Team A hub | ok | 1 |\n'));
  });

  it('escapes backslashes, pipes and newlines in titles and labels', () => {
    const body = buildExport(
      exportedAt,
      [{ url: 'mark://w/a.md', title: 'A | B \\ C\nD', status: 'ok', linkCount: 0 }],
      [{ from: 'mark://w/a.md', to: 'mark://w/b.md', rel: '', label: 'x|y', anchor: '', count: 0 }],
    );
    assert.ok(body.includes('| A \\| B \\\\ C D | ok | 0 |'));
    assert.ok(body.includes('| mark://w/a.md | mark://w/b.md |  | x\\|y |  | 1 |'), 'count is written as at least 1');
  });
});

describe('/graph.md parsing (ParseExport)', () => {
  it('parses the golden back into its nodes and edges', () => {
    const parsed = parseExport(golden);
    assert.deepEqual(
      new Set(parsed.nodes.map((n) => JSON.stringify(n))),
      new Set(goldenNodes.map((n) => JSON.stringify(n))),
    );
    assert.deepEqual(
      new Set(parsed.edges.map((e) => JSON.stringify(e))),
      new Set(goldenEdges.map((e) => JSON.stringify(e))),
    );
  });

  it('round-trips escaped titles and labels', () => {
    const nodes = [{ url: 'mark://w/a.md', title: 'A | B \\ C', status: 'ok', linkCount: 3 }];
    const edges = [
      { from: 'mark://w/a.md', to: 'mark://w/b.md', rel: 'cites', label: 'p|q\\r', anchor: 'intro', count: 4 },
    ];
    assert.deepEqual(parseExport(buildExport(exportedAt, nodes, edges)), { nodes, edges, partial: new Map() });
  });

  it('takes the node URL from the link destination, not its label', () => {
    const body =
      '## Nodes\n\n| URL | Title | Status | Links |\n|-|-|-|-|\n| [short](mark://w/long/path.md) | T | ok | 1 |\n';
    assert.equal(parseExport(body).nodes[0]?.url, 'mark://w/long/path.md');
  });

  it('accepts legacy two-column edge rows with count 1', () => {
    const body = '## Edges\n\n| From | To |\n|------|----|\n| mark://w/a.md | mark://w/b.md |\n';
    assert.deepEqual(parseExport(body).edges, [
      { from: 'mark://w/a.md', to: 'mark://w/b.md', rel: '', label: '', anchor: '', count: 1 },
    ]);
  });

  it('ignores malformed rows and keeps the good ones around them', () => {
    const body = [
      '## Nodes',
      '',
      '| URL | Title | Status | Links |',
      '|-----|-------|--------|-------|',
      '| [mark://w/a.md](mark://w/a.md) | A | ok | 1 |',
      '| [mark://w/b.md](mark://w/b.md) | B | ok | many |',
      '| mark://w/c.md | C | ok | 1 |',
      '| [mark://w/d.md](mark://w/d.md) | D | ok |',
      '| [mark://w/e.md](mark://w/e.md) | E | two words | 1 |',
      '| [mark://w/f.md](mark://w/f.md) | F | ok | 1',
      '| [mark://w/g.md](mark://w/g.md) | G | ok | 1 |',
      '',
      '## Edges',
      '',
      '| From | To | Rel | Label | Anchor | Count |',
      '|------|----|-----|-------|--------|-------|',
      '| mark://w/a.md | mark://w/b.md |  | ok | s | 2 |',
      '| mark://w/a.md | mark://w/b.md | two words | l | s | 2 |',
      '| mark://w/a.md | mark://w/b.md |  | l | s | -1 |',
      '| mark://w/a.md | mark://w/b.md | r | l | s |',
      '| mark://w/a.md mark://w/x.md | mark://w/b.md |',
      '| mark://w/g.md | mark://w/a.md | r |  |  | 0 |',
    ].join('\n');
    const parsed = parseExport(body);
    assert.deepEqual(
      parsed.nodes.map((n) => n.url),
      ['mark://w/a.md', 'mark://w/g.md'],
    );
    assert.deepEqual(
      parsed.edges.map((e) => [e.from, e.to, e.rel, e.count]),
      [
        ['mark://w/a.md', 'mark://w/b.md', '', 2],
        ['mark://w/g.md', 'mark://w/a.md', 'r', 1],
      ],
    );
  });

  it('skips each table header and separator, and rows outside the two sections', () => {
    const body =
      '| [mark://w/x.md](mark://w/x.md) | X | ok | 1 |\n\n## Nodes\n| [mark://w/h.md](mark://w/h.md) | header | ok | 1 |\n|---|\n| [mark://w/a.md](mark://w/a.md) | A | ok | 1 |\n';
    assert.deepEqual(
      parseExport(body).nodes.map((n) => n.url),
      ['mark://w/a.md'],
    );
  });

  it('returns nothing for bodies that are not graph exports', () => {
    assert.deepEqual(parseExport(''), { nodes: [], edges: [], partial: new Map() });
    assert.deepEqual(parseExport('# Hello\n\nno tables here\n'), { nodes: [], edges: [], partial: new Map() });
    assert.deepEqual(parseExport('\u0000\u0001|||||\n|\\|\\|\n'), { nodes: [], edges: [], partial: new Map() });
  });

  it('parses a large export in one pass', () => {
    const nodes = Array.from({ length: 20_000 }, (_, i) => ({
      url: `mark://w/d${i}.md`,
      title: `Doc ${i}`,
      status: 'ok',
      linkCount: 1,
    }));
    const edges = nodes.map((n, i) => ({
      from: n.url,
      to: `mark://w/d${(i + 1) % nodes.length}.md`,
      rel: '',
      label: 'next',
      anchor: '',
      count: 1,
    }));
    const parsed = parseExport(buildExport(exportedAt, nodes, edges));
    assert.equal(parsed.nodes.length, 20_000);
    assert.equal(parsed.edges.length, 20_000);
  });

  it('stays linear on a hostile row of spaces and escapes', () => {
    const hostile = `## Edges\n|h|\n|-|\n|${' \\'.repeat(200_000)}\n|${' '.repeat(400_000)}x\n`;
    assert.deepEqual(parseExport(hostile).edges, []);
  });

  it('writes the partial marker as a section every reader skips, which parseExport reads back', () => {
    const partial = [
      { world: 'team-b', documentsLeftOut: 0, linksLeftOut: 7, linksPerDocument: 3 },
      { world: 'team-a', documentsLeftOut: 12, linksLeftOut: 0, linksPerDocument: 0 },
    ];
    const whole = buildExport(exportedAt, goldenNodes, goldenEdges);
    const body = buildExport(exportedAt, goldenNodes, goldenEdges, partial);
    assert.deepEqual(
      [...parseExport(body).partial],
      [
        ['team-a', 0],
        ['team-b', 3],
      ],
    );
    assert.equal(parseExport(whole).partial.size, 0);
    // The rows read back the same, by this parser and by any that reads only table rows.
    const rows = ({ nodes, edges }: ParsedExport) => ({ nodes, edges });
    assert.deepEqual(rows(parseExport(body)), rows(parseExport(whole)));
    const tableLines = (text: string) => text.split('\n').filter((line) => line.trim().startsWith('|'));
    assert.deepEqual(tableLines(body), tableLines(whole));
    // The Go reference's ParseExportStrict (client/graphstore/export.go) rejects any `> ` line
    // but these three, and wants the title first: the section adds neither kind of line.
    const lines = body.split('\n');
    assert.equal(lines[0], '# Document Graph');
    assert.deepEqual(
      lines.filter((line) => line.startsWith('> ')).map((line) => line.split(':')[0]),
      ['> Exported', '> Nodes', '> Edges'],
    );
    const section = body.slice(body.indexOf('\n## Partial\n'), body.indexOf('\n## Nodes\n'));
    assert.match(section, /^- team-a: 12 documents and 0 links left out; at most 0 links per document$/m);
    assert.match(section, /^- team-b: 0 documents and 7 links left out; at most 3 links per document$/m);
    assert.match(section, /read the world itself/);
  });

  it('reads partial worlds only from the partial section', () => {
    const body =
      '# Document Graph\n\n- team-x: not a marker\n\n## Partial\n\n- team-a: 1 documents and 0 links left out\n\n## Nodes\n\n- team-y: not a marker\n';
    assert.deepEqual([...parseExport(body).partial], [['team-a', 0]]);
  });

  it('reads a bullet without a per-document bound, as written before it, as bound 0: any document may be cut', () => {
    const body =
      '# Document Graph\n\n## Partial\n\n- team-a: 1 documents and 0 links left out\n- team-b: 0 documents and 9 links left out; at most 12 links per document\n\n## Nodes\n';
    assert.deepEqual(
      [...parseExport(body).partial],
      [
        ['team-a', 0],
        ['team-b', 12],
      ],
    );
  });
});
