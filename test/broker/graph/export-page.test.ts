import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildExport, exportEdgeRow, exportNodeRow } from '../../../src/broker/graph/graph-export.ts';
import { exportPageRows, renderExportPage } from '../../../src/broker/graph/export-page.ts';
import type { GraphEdge, GraphNode } from '../../../src/broker/graph/model.ts';

const exportedAt = new Date('2026-01-01T00:00:00Z');
const nodes: GraphNode[] = ['c', 'a', 'b'].map((name) => ({
  url: `mark://w/${name}.md`,
  title: name.toUpperCase(),
  status: 'ok',
  linkCount: 1,
}));
const edges: GraphEdge[] = [
  { from: 'mark://w/b.md', to: 'mark://w/c.md', rel: '', label: 'c', anchor: '', count: 1 },
  { from: 'mark://w/a.md', to: 'mark://w/b.md', rel: '', label: 'b', anchor: '', count: 1 },
];
const sortedNodes = [...nodes].sort((x, y) => x.url.localeCompare(y.url));
const rowBytes = Buffer.byteLength(exportNodeRow(sortedNodes[0]!));

/** One page as BrokerGraph.readableExportPage builds it for a caller who may read every row. */
const exportPage = (at: Date, n: GraphNode[], e: GraphEdge[], offset: number, maxRowBytes?: number) =>
  renderExportPage(at, exportPageRows(n, e, offset, maxRowBytes), maxRowBytes);

describe('mark_graph_export pages (exportPageRows, renderExportPage)', () => {
  it('answers a graph that fits one page as the whole /graph.md export, byte for byte', () => {
    const page = exportPage(exportedAt, nodes, edges, 0);
    assert.equal(page.text, buildExport(exportedAt, nodes, edges));
    assert.equal(page.nextOffset, undefined);
    assert.equal(page.nodes.length + page.edges.length, 5);
  });

  it('takes rows, nodes then edges, while they fit the bound, and counts offsets across both tables', () => {
    const first = exportPage(exportedAt, nodes, edges, 0, 2 * rowBytes);
    assert.deepEqual(
      first.nodes.map((n) => n.url),
      ['mark://w/a.md', 'mark://w/b.md'],
    );
    assert.deepEqual(first.edges, []);
    assert.equal(first.nextOffset, 2);
    assert.match(
      first.text,
      /^# Document Graph\n\n> Exported: 2026-01-01T00:00:00Z\n> Nodes: 3\n> Edges: 2\n\n## Nodes\n/,
    );
    assert.match(first.text, /This answer lists rows 1 to 2 of the graph's 5 rows \(3 nodes, then 2 edges\)/);
    assert.match(first.text, /3 rows are left out\. Call mark_graph_export with offset 2 for the next rows\./);

    const middle = exportPage(exportedAt, nodes, edges, 2, 2 * rowBytes);
    assert.deepEqual(
      middle.nodes.map((n) => n.url),
      ['mark://w/c.md'],
    );
    assert.deepEqual(
      middle.edges.map((e) => e.from),
      ['mark://w/a.md'],
    );
    assert.ok(middle.text.includes(`\n## Edges\n`) && middle.text.includes(exportEdgeRow(middle.edges[0]!)));
    assert.equal(middle.nextOffset, 4);

    const last = exportPage(exportedAt, nodes, edges, 4, 2 * rowBytes);
    assert.equal(last.nodes.length, 0);
    assert.deepEqual(
      last.edges.map((e) => e.from),
      ['mark://w/b.md'],
    );
    assert.equal(last.nextOffset, undefined);
    assert.match(last.text, /These are the last rows; offset 0 reads the first\./);
  });

  it('always moves on: a row larger than the bound is a page of its own', () => {
    const page = exportPage(exportedAt, nodes, edges, 1, 1);
    assert.deepEqual(
      page.nodes.map((n) => n.url),
      ['mark://w/b.md'],
    );
    assert.equal(page.nextOffset, 2);
  });

  it('answers an offset past the last row with no rows and the size of the graph', () => {
    const page = exportPage(exportedAt, nodes, edges, 9, 2 * rowBytes);
    assert.deepEqual([page.nodes, page.edges, page.nextOffset], [[], [], undefined]);
    assert.match(page.text, /No rows from offset 9: the graph holds 5 rows \(3 nodes, then 2 edges\)\./);
  });
});
