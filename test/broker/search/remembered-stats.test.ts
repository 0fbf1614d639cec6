import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lookupExtensionKeys } from '../../../src/search/index.ts';
import {
  sameQueryStats,
  searchWorlds,
  SearchStatsMemory,
  type LookupFn,
  type RememberedSearch,
  type SearchOutcome,
} from '../../../src/broker/search/index.ts';
import type { Metadata } from '../../../src/protocol/metadata.ts';
import { openInProcessWorlds, type InProcessWorlds } from './in-process-worlds.ts';

/**
 * Cross-world search with remembered statistics (src/broker/search/stats-memory.ts):
 * one round per world once the statistics are known, two whenever they moved,
 * and in every case the rows and scores of the plain two-phase search.
 */
const names = ['alpha', 'beta', 'gamma'];
const request = { worlds: names, scope: '/', limit: 20, terms: 'any' as const };
const rowsOf = (outcome: SearchOutcome) =>
  outcome.rows.map((r) => `${r.world}:${r.path}#${r.anchor} ${r.score?.toFixed(4) ?? '-'}`);

describe('cross-world search with remembered statistics', () => {
  let worlds: InProcessWorlds;
  let asked: Map<string, number>;
  let memory: SearchStatsMemory;
  const counting =
    (inner: LookupFn): LookupFn =>
    (world, call) => {
      asked.set(world, (asked.get(world) ?? 0) + 1);
      return inner(world, call);
    };
  const mine = (): RememberedSearch => ({ memory, where: { subject: 'ann', scope: '/' } });
  /** The search with memory, and how many LOOKUPs each world got; beside it, the same search without memory. */
  async function both(query: string, lookup: LookupFn = worlds.lookup, remembered = mine()) {
    asked = new Map();
    const withMemory = await searchWorlds(counting(lookup), { ...request, query }, remembered);
    const rounds = [...asked.values()];
    const plain = await searchWorlds(lookup, { ...request, query });
    return { withMemory, plain, rounds };
  }

  before(async () => {
    worlds = await openInProcessWorlds(names);
    await worlds.publish('alpha', '/rotation.md', '# Token rotation\n\nKeys rotate every day; the job signs tokens.\n');
    await worlds.publish('beta', '/deploy.md', '# Deploy\n\nThe deploy job ships the build to the fleet.\n');
    await worlds.publish('gamma', '/glossary.md', '# Glossary\n\nRotation: replacing keys. Fleet: every server.\n');
  });
  after(() => worlds.close());
  beforeEach(() => {
    memory = new SearchStatsMemory();
  });

  it('asks each world twice the first time and once the next, with the same rows and scores', async () => {
    const first = await both('rotate keys fleet');
    assert.deepEqual(first.rounds, [2, 2, 2]);
    assert.deepEqual(rowsOf(first.withMemory), rowsOf(first.plain));
    assert.equal(first.withMemory.ranking, 'score');
    const second = await both('rotate keys fleet');
    assert.deepEqual(second.rounds, [1, 1, 1]);
    assert.deepEqual(rowsOf(second.withMemory), rowsOf(second.plain));
    assert.ok(second.withMemory.rows.length >= 3);
  });

  it('answers a new question made of words already asked about in one round', async () => {
    await both('rotate keys fleet');
    const other = await both('fleet keys');
    assert.deepEqual(other.rounds, [1, 1, 1]);
    assert.deepEqual(rowsOf(other.withMemory), rowsOf(other.plain));
    assert.deepEqual((await both('fleet build')).rounds, [2, 2, 2]);
  });

  it('takes the second round when a world changed since, and gives the fresh ranking', async () => {
    await both('signs tokens');
    await worlds.publish('beta', '/signing.md', '# Signing\n\nThe signer signs tokens and signs builds.\n');
    const changed = await both('signs tokens');
    assert.deepEqual(changed.rounds, [2, 2, 2]);
    assert.deepEqual(rowsOf(changed.withMemory), rowsOf(changed.plain));
    assert.ok(changed.withMemory.rows.some((r) => r.path === '/signing.md'));
    assert.deepEqual((await both('signs tokens')).rounds, [1, 1, 1]);
  });

  it("never scores with another caller's statistics, nor with those of another scope", async () => {
    await both('rotate keys fleet');
    const bob = await both('rotate keys fleet', worlds.lookup, { memory, where: { subject: 'bob', scope: '/' } });
    assert.deepEqual(bob.rounds, [2, 2, 2]);
    const filtered = { memory, where: { subject: 'ann', scope: '/', filter: 'tags=ops' } };
    assert.deepEqual((await both('rotate keys fleet', worlds.lookup, filtered)).rounds, [2, 2, 2]);
  });

  it('falls back to two phases for a world of ours that does not answer own-stats, and stays there', async () => {
    // A world from before `own-stats`: it ignores the key and scores with what it is sent.
    const older: LookupFn = (world, call) => {
      if (world !== 'beta') return worlds.lookup(world, call);
      const { [lookupExtensionKeys.ownStats]: _ignored, ...metadata } = call.metadata;
      return worlds.lookup(world, { ...call, metadata });
    };
    await both('rotate keys fleet', older);
    const unchecked = await both('rotate keys fleet', older);
    // alpha and gamma: the checked round, then phase two; beta: the checked round, phase one, phase two.
    assert.deepEqual(unchecked.rounds, [2, 3, 2]);
    assert.deepEqual(rowsOf(unchecked.withMemory), rowsOf(unchecked.plain));
    assert.deepEqual((await both('rotate keys fleet', older)).rounds, [2, 2, 2]);
  });

  it('asks a world that does not score (Go) once, and the others once when they are known', async () => {
    const extensionKeys: string[] = Object.values(lookupExtensionKeys);
    const strip = (m: Metadata) => Object.fromEntries(Object.entries(m).filter(([k]) => !extensionKeys.includes(k)));
    const withGo: LookupFn = async (world, call) => {
      if (world !== 'gamma') return worlds.lookup(world, call);
      const answer = await worlds.lookup(world, { ...call, metadata: strip(call.metadata) });
      return { ...answer, metadata: strip(answer.metadata) };
    };
    assert.deepEqual((await both('rotate keys fleet', withGo)).rounds, [2, 2, 1]);
    const known = await both('rotate keys fleet', withGo);
    assert.deepEqual(known.rounds, [1, 1, 1]);
    assert.equal(known.withMemory.ranking, 'mixed');
    assert.deepEqual(rowsOf(known.withMemory), rowsOf(known.plain));
  });

  it('keeps a failed world out and answers the others as the two-phase search does', async () => {
    await both('rotate keys fleet');
    const failing: LookupFn = (world, call) =>
      world === 'gamma' ? Promise.reject(new Error('gamma is down')) : worlds.lookup(world, call);
    const outcome = await both('rotate keys fleet', failing);
    assert.deepEqual(
      outcome.withMemory.failures.map((f) => f.world),
      ['gamma'],
    );
    // gamma's statistics are missing from the sum, so alpha and beta score again without them.
    assert.deepEqual(outcome.rounds, [2, 2, 1]);
    assert.deepEqual(rowsOf(outcome.withMemory), rowsOf(outcome.plain));
  });
});

describe('SearchStatsMemory', () => {
  const totals = {
    docCount: 3,
    sectionCount: 4,
    describedDocs: 0,
    nameTokens: 6,
    descriptionTokens: 0,
    bodyTokens: 40,
    trailTokens: 5,
  };
  const where = { subject: 'ann', scope: '/' };

  it('forgets every df of a world whose totals moved', () => {
    const memory = new SearchStatsMemory();
    memory.remember(where, 'w', { totals, df: { keys: 2 } });
    memory.remember(where, 'w', { totals, df: { fleet: 1 } });
    assert.deepEqual({ ...memory.recall(where, 'w', ['keys', 'fleet'])?.df }, { keys: 2, fleet: 1 });
    memory.remember(where, 'w', { totals: { ...totals, docCount: 4 }, df: { fleet: 2 } });
    assert.equal(memory.recall(where, 'w', ['keys']), undefined);
    assert.deepEqual({ ...memory.recall(where, 'w', ['fleet'])?.df }, { fleet: 2 });
  });

  it('keeps at most the configured terms per world and entries in all', () => {
    const memory = new SearchStatsMemory({ maxEntries: 2, maxTermsPerEntry: 2 });
    memory.remember(where, 'w', { totals, df: { a: 1, b: 1 } });
    memory.remember(where, 'w', { totals, df: { c: 1 } });
    assert.equal(memory.recall(where, 'w', ['a']), undefined);
    assert.ok(memory.recall(where, 'w', ['b', 'c']) !== undefined);
    memory.remember(where, 'x', { totals, df: {} });
    memory.remember(where, 'y', { totals, df: {} });
    assert.equal(memory.size, 2);
    assert.equal(memory.recall(where, 'w', ['b']), undefined);
  });

  it('keeps a world known as unchecked for ten minutes, then takes its statistics again', () => {
    let now = 0;
    const memory = new SearchStatsMemory({ now: () => now });
    memory.remember(where, 'w', 'unchecked');
    memory.remember(where, 'w', { totals, df: { keys: 2 } });
    assert.equal(memory.recall(where, 'w', ['keys']), undefined);
    now = 10 * 60_000;
    assert.equal(memory.size, 1);
    memory.remember(where, 'w', { totals, df: { keys: 2 } });
    assert.deepEqual({ ...memory.recall(where, 'w', ['keys'])?.df }, { keys: 2 });
    assert.equal(memory.size, 1);
  });

  it('treats a term that is absent as different from a df of 0', () => {
    assert.equal(sameQueryStats({ totals, df: { a: 0 } }, { totals, df: {} }), false);
    assert.equal(sameQueryStats({ totals, df: { a: 0 } }, { totals, df: { a: 0 } }), true);
    assert.equal(
      sameQueryStats({ totals, df: { a: 1 } }, { totals: { ...totals, bodyTokens: 41 }, df: { a: 1 } }),
      false,
    );
  });
});
