/**
 * A LIST of a 250-document folder waits for few filesystem results one after
 * another. Checking each entry takes about seven filesystem calls in a row;
 * one entry after another, the listing waited for 1,751 results in sequence,
 * each a turn of the event loop that another client's requests could make
 * long, and back-to-back fetches starved it past the broker's deadline
 * (test/security/listing-starvation.test.ts, src/world/store/listing.ts).
 * This counts the chain without timing, so it holds on any machine.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sequentialFsCalls } from '../../support/sequential-fs-calls.ts';
import { bytes, openStore, removeTempRoots } from './support.ts';

after(removeTempRoots);

describe('LIST of a large folder', () => {
  it('waits for at most 1/16 of the filesystem results that checking its entries one by one would', async (t) => {
    const documents = 250;
    const { store } = await openStore();
    await store.publish('/one/d.md', bytes('# One\n'), {});
    for (let i = 0; i < documents; i += 1) await store.publish(`/docs/d${i}.md`, bytes(`# Doc ${i}\n`), {});
    const listing = async (folder: string, expected: number) => {
      let listed = -1;
      const chain = await sequentialFsCalls(async () => {
        listed = (await store.list(folder, { includeArchived: false })).length;
      });
      assert.equal(listed, expected);
      return chain;
    };
    // A folder of one document: the folder's own calls and one entry's.
    const single = await listing('/one', 1);
    assert.ok(single >= 3, `${single} filesystem calls one after another for one entry`);
    const large = await listing('/docs', documents);
    const measured = `${large} filesystem calls one after another for ${documents} entries, ${single} for one`;
    t.diagnostic(measured);
    // One entry after another, the chain would be about `documents` times one entry's.
    assert.ok(large * 16 <= documents * single, measured);
  });
});
