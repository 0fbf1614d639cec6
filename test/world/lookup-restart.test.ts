/**
 * A body LOOKUP runs in slices (src/search/slices.ts); when the world's index
 * changes between two of them it starts again, so its answer is read from one
 * index, the final one (`stale` in src/world/body-index.ts). The slicing tests
 * (test/search/sliced-queries.test.ts) simulate the change; here a real PUBLISH,
 * over QUIC to a real world, lands while a LOOKUP waits between slices.
 *
 * The LOOKUP misses and asks `nearest-titles` (test/world/titled-documents.ts);
 * its catalog reads, one per title compared, are counted as in
 * test/world/lookup-abandonment.test.ts. The first document's title is the
 * nearest one. Once the LOOKUP has compared it, the PUBLISH gives that document
 * a title near no query word. Read across the change, the answer would still name
 * the old title, which the final index no longer holds (checked with `stale`
 * never true: the test fails on the answer).
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { MarkResponse } from '../../src/protocol/response.ts';
import type { BodyIndex } from '../../src/world/body-index.ts';
import { missMetadata, missWords, publishTitled } from './titled-documents.ts';
import { startWorldFixture, text, type WorldFixture } from './world-fixture.ts';

/**
 * Titles compared: the search yields every 8 (src/search/nearest-titles.ts), so about
 * 60 turns of the loop; the PUBLISH's file system steps take some 20-35 (measured).
 */
const documents = 480;
const nearPath = '/notes/a-near.md';
const nearTitle = missWords.slice(0, 3).join(' ');
/** Titles the LOOKUP compares before the PUBLISH is sent. */
const publishAfter = 5;

describe('body LOOKUP while the index changes under it (src/search/slices.ts)', () => {
  let fixture: WorldFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('answers as a LOOKUP alone over the final index when a PUBLISH lands between its slices', async () => {
    fixture = await startWorldFixture();
    const world = fixture;
    const auth = world.tokens.writer as string;
    // Published first, so the search compares its title first.
    await world.local('PUBLISH', nearPath, { auth }, `# ${nearTitle}\n\nplain text\n`);
    await publishTitled(world, documents);
    const first = await world.call('LOOKUP', '/', missMetadata);
    assert.match(first.metadata['nearest-titles'] ?? '', new RegExp(nearTitle), 'the first title is a nearest one');

    const { catalog } = world.server.world.context;
    const index = world.server.world.context.bodyIndex as BodyIndex;
    const reads = new Map<string, number>();
    let compared = 0;
    /** A title compared before the PUBLISH was sent, other than the one it changes. */
    let comparedBefore: string | undefined;
    let published: Promise<MarkResponse> | undefined;
    /** Set when the PUBLISH reached the body index: whether the LOOKUP was still running. */
    let landed: { midLookup: boolean } | undefined;
    let answered = false;
    const nap = new Int32Array(new SharedArrayBuffer(4));
    const get = catalog.get.bind(catalog);
    catalog.get = (path) => {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      if (++compared === publishAfter) {
        comparedBefore = [...reads.keys()].find((p) => p !== nearPath);
        published = world.call('PUBLISH', nearPath, { auth }, '# renamed\n\nplain\n');
      }
      // Until the PUBLISH lands, a title takes 1 ms more (asleep, not spinning), so each
      // piece of the search outlasts a slice and every yield gives the loop a turn.
      if (published !== undefined && landed === undefined) Atomics.wait(nap, 0, 0, 1);
      return get(path);
    };
    const lookup = index.lookup.bind(index);
    index.lookup = (query, request, options) => {
      const answer = lookup(query, request, options);
      const settle = () => {
        answered = true;
      };
      answer.then(settle, settle);
      return answer;
    };
    const upsert = index.upsert.bind(index);
    index.upsert = (doc) => {
      upsert(doc);
      if (doc.path === nearPath) landed = { midLookup: !answered };
    };

    const during = await world.call('LOOKUP', '/', missMetadata);
    assert.equal((await (published as Promise<MarkResponse>)).status, 'created');
    assert.ok(landed?.midLookup, 'the PUBLISH reached the index only after the LOOKUP answered: nothing was tested');
    assert.equal(reads.get(comparedBefore as string), 2, 'the LOOKUP started again: a title it had compared, again');

    catalog.get = get;
    const alone = await world.call('LOOKUP', '/', missMetadata);
    assert.doesNotMatch(alone.metadata['nearest-titles'] ?? '', new RegExp(nearTitle));
    assert.deepEqual(during.metadata, alone.metadata);
    assert.equal(text(during), text(alone));
  });
});
