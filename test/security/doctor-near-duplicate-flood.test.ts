/**
 * Threat: one mark_doctor call holds the broker's event loop for minutes.
 * Any caller with `mark.read` may ask for a report, and any writer of any
 * world decides what it reads. The near-duplicate search proposes candidate
 * pairs with MinHash bands and scores each exactly, synchronously; when many
 * documents are alike (a template filled in per service, or pages written for
 * the purpose) every one of them lands in the same bucket of every band, and
 * every pair of them is scored: n²/2 exact comparisons and as many findings.
 *
 * The attack below succeeded before the fix (checked by running this file
 * against it): 400 documents that differ by one word made one report score
 * and return 79,800 near-duplicate pairs. Measured on this machine with
 * `nearDuplicates` alone: 1,000 such documents 8.2 s, 2,000 of them 33 s, and
 * a report reads up to 5,000 (about 200 s, 12.5 million findings held in
 * memory). The search now stops at a fixed number of exact comparisons and
 * says so under `## Not examined`, so the report is `partial`.
 *
 * Real worlds over QUIC and the real mark_doctor tool, as
 * test/broker/knowledge/doctor.test.ts drives it. No timing threshold: the
 * test counts comparisons' results, not seconds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { maxNearComparisons } from '../../src/broker/knowledge/doctor/index.ts';
import { runPool } from '../../src/concurrency/pool.ts';
import { runTool } from '../../src/broker/mcp/run-tool.ts';
import { markDoctor } from '../../src/broker/mcp/tools/doctor.ts';
import { toolContext } from '../broker/mcp/helpers/context.ts';
import { startTestStack, type TestStack } from '../broker/mcp/helpers/fixture-gateway.ts';

const documents = 400;
const template = Array.from({ length: 200 }, (_, i) => `step${i}`).join(' ');

describe('mark_doctor over many alike documents', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a']);
    await runPool(
      Array.from({ length: documents }, (_, i) => i),
      async (i) => {
        await stack.seed('team-a', `/services/s${i}.md`, `# Service ${i}\n\n${template} service${i}\n`, {
          tags: 'category:runbook',
        });
      },
      { workers: 8 },
    );
  });
  after(() => stack.close());

  it('scores a bounded number of pairs and says the search stopped', async () => {
    const result = await runTool(markDoctor, { kinds: 'near-duplicate', limit: 1 }, toolContext(stack.gateway));
    assert.equal(result.isError, undefined, result.text);
    const total = Number(/^findings: (\d+)$/m.exec(result.text)?.[1]);
    assert.ok(total > 0, 'the alike documents are still reported as near duplicates');
    assert.ok(total <= maxNearComparisons, `${total} pairs scored; every pair is ${(documents * (documents - 1)) / 2}`);
    assert.match(result.text, /^status: partial$/m);
    assert.match(
      result.text,
      /\n\| team-a \| near-duplicate search stopped after [\d,]+ comparisons: too many documents are alike, so some near duplicates are not reported; examine fewer worlds at a time \\\(worlds\\\) \|\n/,
    );
  });
});
