/**
 * Threat: one caller takes what the broker remembers for everyone else's
 * searches. The statistics memory (src/broker/search/stats-memory.ts) is one
 * bounded store for the whole broker process, so a search of other callers
 * takes one round per world instead of two only while their entries stay in
 * it. A caller who searches under a new filter each time (any `tag=` value
 * will do: the worlds answer statistics for an empty selection too) adds one
 * entry per world per search.
 *
 * The attack succeeded while the store was one least-recently-used list for
 * all callers (checked by running this file against it): the flooder's
 * entries pushed out every other caller's, whose next search took two rounds
 * in every world again. Now the largest holder pays when the store is full,
 * so a flood evicts only the flooder's own entries.
 *
 * Real worlds (store, catalog, body index, wire encoding) answered in-process,
 * and the broker's real cross-world search; the bound is small so the flood is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { searchWorlds, SearchStatsMemory, type LookupFn } from '../../src/broker/search/index.ts';
import { openInProcessWorlds, type InProcessWorlds } from '../broker/search/in-process-worlds.ts';

const names = ['alpha', 'beta'];

describe('security: one caller cannot empty the search statistics others rely on', () => {
  let worlds: InProcessWorlds;
  before(async () => {
    worlds = await openInProcessWorlds(names);
    await worlds.publish('alpha', '/rotation.md', '# Token rotation\n\nKeys rotate every day.\n');
    await worlds.publish('beta', '/deploy.md', '# Deploy\n\nThe deploy job ships keys to the fleet.\n');
  });
  after(() => worlds.close());

  /** LOOKUPs each world got for one search by `subject` under `filter`. */
  async function rounds(memory: SearchStatsMemory, subject: string, filter?: string): Promise<number[]> {
    const asked = new Map<string, number>();
    const counting: LookupFn = (world, call) => {
      asked.set(world, (asked.get(world) ?? 0) + 1);
      return worlds.lookup(world, call);
    };
    const outcome = await searchWorlds(
      counting,
      { worlds: names, query: 'rotate keys', scope: '/', filter, limit: 10, terms: 'any' },
      { memory, where: { subject, scope: '/', filter } },
    );
    assert.deepEqual(outcome.failures, []);
    return names.map((world) => asked.get(world) ?? 0);
  }

  it("a flood of new filters evicts the flooder's own entries, never another caller's", async () => {
    const memory = new SearchStatsMemory({ maxEntries: 8 });
    await rounds(memory, 'ann');
    assert.deepEqual(await rounds(memory, 'ann'), [1, 1], 'ann is remembered');
    // Eight searches under new filters: 16 entries, twice what the memory holds.
    for (let i = 0; i < 8; i += 1) await rounds(memory, 'mallory', `tag=flood-${i}`);
    assert.equal(memory.size, 8);
    assert.deepEqual(await rounds(memory, 'ann'), [1, 1], "ann's statistics survived the flood");
    assert.deepEqual(await rounds(memory, 'mallory', 'tag=flood-0'), [2, 2], "the flooder's oldest went");
  });

  it('a caller alone may still use the whole memory', async () => {
    const memory = new SearchStatsMemory({ maxEntries: 8 });
    for (let i = 0; i < 4; i += 1) await rounds(memory, 'ann', `tag=t-${i}`);
    assert.equal(memory.size, 8);
    for (let i = 0; i < 4; i += 1) assert.deepEqual(await rounds(memory, 'ann', `tag=t-${i}`), [1, 1]);
  });
});
