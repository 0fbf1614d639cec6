import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { quicCrawlThroughput } from '../../bench/graph.ts';

describe('bench/graph.ts crawl over QUIC', () => {
  it('prints each QUIC crawl as a ratio to the in-process crawl of the same world in the same run (issue 16)', async () => {
    const lines = await quicCrawlThroughput(40, 1);
    const baseline = lines.find((line) => line.includes('in-process handler (baseline)'));
    assert.ok(baseline?.startsWith('crawl, 40-document world,'), lines.join('\n'));
    const overQuic = lines.filter((line) => line.includes('over QUIC'));
    assert.equal(overQuic.length, 2, lines.join('\n'));
    for (const line of overQuic) {
      assert.ok(line.startsWith('crawl, 40-document world,'), line);
      assert.match(line, /, x\d+\.\d{3} of the in-process crawl;/);
    }
  });
});
