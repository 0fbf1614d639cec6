/**
 * Threat: one mark_doctor call fills the broker's memory. A report holds the
 * body of every document it reads until it has judged them all, and it reads
 * up to 5,000 documents; a body may be 1 MiB (src/protocol/limits.ts), so a
 * world of large documents, which any writer can make, had one report hold
 * up to 5 GiB of bodies (twice that once decoded to UTF-16), far past a
 * broker pod's memory, at the request of any caller with `mark.read`.
 *
 * The attack below succeeded before the fix (checked by running this file
 * against it): under limits that bound documents and time but leave bytes
 * unbounded, the corpus held every body read, 3.4 MiB against a 1 MiB bound
 * asked for, and called the world examined in full. Reading now stops at a
 * bound on the bytes held (64 MiB by default), and the world is listed under
 * `## Not examined` with the reason.
 *
 * Real worlds over QUIC and the doctor's real collector, with the bound set
 * small so the test seeds a few MiB rather than 64.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collectCorpus, defaultCorpusLimits } from '../../src/broker/knowledge/doctor/index.ts';
import { startTestStack, type TestStack } from '../broker/mcp/helpers/fixture-gateway.ts';

const mib = 1024 * 1024;
const large = (i: number) => `# Large ${i}\n\n${'All work and no play. '.repeat(32_000)}\n`;

describe('the doctor holds a bounded number of bytes', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a']);
    for (let i = 0; i < 5; i++) await stack.seed('team-a', `/large/l${i}.md`, large(i));
  });
  after(() => stack.close());

  it('stops reading at the byte bound and says the world was not examined in full', async () => {
    const limits = { ...defaultCorpusLimits, maxBytes: mib };
    const corpus = await collectCorpus(stack.gateway, stack.gateway.list(), { hub: 'root', limits });
    const held = corpus.documents.reduce((sum, doc) => sum + Buffer.byteLength(doc.body), 0);
    assert.ok(held <= mib, `${(held / mib).toFixed(1)} MiB of bodies held under a 1 MiB bound`);
    assert.equal(corpus.completeWorlds.has('team-a'), false);
    assert.deepEqual(corpus.notExamined, [
      {
        world: 'team-a',
        reason:
          'byte bound reached (1 MiB of documents per report) before every document was read; examine fewer worlds at a time (worlds)',
      },
    ]);
  });

  it('bounds a default report at 64 MiB of documents', () => {
    assert.equal(defaultCorpusLimits.maxBytes, 64 * mib);
  });
});
