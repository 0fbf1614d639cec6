import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lookupExtensionKeys } from '../../../src/search/index.ts';
import { LookupAnswerError, searchWorlds, WorldSearchError, type LookupFn } from '../../../src/broker/search/index.ts';
import type { Metadata } from '../../../src/protocol/metadata.ts';
import { openInProcessWorlds, type InProcessWorlds } from './in-process-worlds.ts';

const extensionKeys: string[] = Object.values(lookupExtensionKeys);

/**
 * A world that knows nothing of our extension, as the Go server: it ignores
 * the extra request keys and answers a plain Go `bodymatch.go` body match.
 */
function asGoWorld(inner: LookupFn): LookupFn {
  const strip = (m: Metadata) => Object.fromEntries(Object.entries(m).filter(([k]) => !extensionKeys.includes(k)));
  return async (world, call) => {
    const answer = await inner(world, { ...call, metadata: strip(call.metadata) });
    return { ...answer, metadata: strip(answer.metadata) };
  };
}

const request = { scope: '/', limit: 10, terms: 'any' as const };

describe('cross-world search with worlds that do not score', () => {
  let worlds: InProcessWorlds;
  let lookup: LookupFn;
  before(async () => {
    worlds = await openInProcessWorlds(['ours-a', 'ours-b', 'go']);
    await worlds.publish('ours-a', '/a.md', '# Alpha\n\nthe rotation of signing keys\n');
    await worlds.publish('ours-b', '/b.md', '# Beta\n\nrotation\n');
    await worlds.publish('go', '/g1.md', '# Gamma\n\nsigning keys rotation\n');
    await worlds.publish('go', '/g2.md', '# Delta\n\nkeys rotation signing again and again\n');
    lookup = (world, call) => (world === 'go' ? asGoWorld(worlds.lookup)(world, call) : worlds.lookup(world, call));
  });
  after(() => worlds.close());

  it('interleaves a Go world by its own rank beside the scored worlds, and says so', async () => {
    const outcome = await searchWorlds(lookup, { ...request, worlds: worlds.names, query: 'rotation signing keys' });
    assert.equal(outcome.ranking, 'mixed');
    assert.deepEqual(outcome.strictWorlds, ['go']);
    assert.deepEqual(
      outcome.rows.map((r) => `${r.world}:${r.path}:${r.score === undefined ? '-' : 'scored'}`),
      ['ours-a:/a.md:scored', 'go:/g1.md:-', 'ours-b:/b.md:scored', 'go:/g2.md:-'],
    );
  });

  it('merges by rank alone when no world scores', async () => {
    const outcome = await searchWorlds(asGoWorld(worlds.lookup), {
      ...request,
      worlds: worlds.names,
      query: 'rotation',
    });
    assert.equal(outcome.ranking, 'rank');
    assert.ok(outcome.rows.every((r) => r.score === undefined));
    assert.deepEqual(outcome.strictWorlds, ['go', 'ours-a', 'ours-b']);
  });

  it('asks a Go world once: its phase-one answer is final', async () => {
    const seen: string[] = [];
    const counting: LookupFn = (world, call) => {
      seen.push(world);
      return lookup(world, call);
    };
    await searchWorlds(counting, { ...request, worlds: worlds.names, query: 'rotation' });
    assert.deepEqual(
      seen.filter((w) => w === 'go'),
      ['go'],
    );
    assert.deepEqual(
      seen.filter((w) => w === 'ours-a'),
      ['ours-a', 'ours-a'],
    );
  });
});

describe('cross-world search with worlds that answer badly', () => {
  let worlds: InProcessWorlds;
  before(async () => {
    worlds = await openInProcessWorlds(['good']);
    await worlds.publish('good', '/a.md', '# Alpha\n\nrotation\n');
  });
  after(() => worlds.close());

  it('fails a world whose table disagrees with its matches count, and keeps the others', async () => {
    const lying: LookupFn = async (world, call) => {
      if (world === 'good') return worlds.lookup(world, call);
      const answer = await worlds.lookup('good', {
        ...call,
        metadata: { query: call.metadata.query!, match: 'body' },
      });
      return { ...answer, metadata: { ...answer.metadata, matches: '7' } };
    };
    const outcome = await searchWorlds(lying, { ...request, worlds: ['good', 'liar'], query: 'rotation' });
    assert.deepEqual(
      outcome.rows.map((r) => r.world),
      ['good'],
    );
    assert.equal(outcome.failures[0]?.world, 'liar');
    assert.ok(outcome.failures[0]?.error instanceof LookupAnswerError);
  });

  it('fails a world whose statistics do not parse', async () => {
    const garbled: LookupFn = async (_world, call) => {
      const answer = await worlds.lookup('good', call);
      return answer.metadata['corpus-stats']
        ? { ...answer, metadata: { ...answer.metadata, 'corpus-stats': 'docs=many' } }
        : answer;
    };
    const outcome = await searchWorlds(garbled, { ...request, worlds: ['w'], query: 'rotation' });
    assert.deepEqual(outcome.rows, []);
    assert.match(
      String((outcome.failures[0]!.error as Error).message),
      /malformed LOOKUP response: invalid corpus-stats entry/,
    );
  });

  it("fails a world that refuses the query, in the world's words", async () => {
    const outcome = await searchWorlds(worlds.lookup, { ...request, worlds: ['good'], query: 'x' });
    const error = outcome.failures[0]?.error;
    assert.ok(error instanceof WorldSearchError);
    assert.match(error.message, /^status bad-request: .*query must be at least 2 characters/);
  });
});

describe('cross-world search with a world without full-text search', () => {
  let worlds: InProcessWorlds;
  before(async () => {
    worlds = await openInProcessWorlds(['catalog-only'], { bodySearch: false });
    await worlds.publish('catalog-only', '/runbook.md', '# Rotation runbook\n\nnothing else\n', { tags: 'ops' });
  });
  after(() => worlds.close());

  it('takes its catalog rows, ranked by its own order, and names it', async () => {
    const outcome = await searchWorlds(worlds.lookup, { ...request, worlds: ['catalog-only'], query: 'rotation' });
    assert.deepEqual(outcome.catalogWorlds, ['catalog-only']);
    assert.deepEqual(
      outcome.rows.map((r) => [r.path, r.anchor, r.snippet, r.title]),
      [['/runbook.md', '', '', 'Rotation runbook']],
    );
  });
});
