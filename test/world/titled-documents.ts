/**
 * Documents with long titles of words no two alike, and a query that misses them
 * all, for the costliest body LOOKUP: a miss with `nearest-titles`, which compares
 * every title the caller may read with every query word (src/search/nearest-titles.ts).
 * Shared by test/world/lookup-abandonment.test.ts and test/world/lookup-restart.test.ts.
 */
import type { WorldFixture } from './world-fixture.ts';

/** A lowercase word of `length` letters, the n-th of its kind (no two alike). */
export function word(n: number, length: number, salt: number): string {
  let out = '';
  let x = (n + 1) * 2654435761 + salt * 40503;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += String.fromCharCode(97 + (x % 26));
  }
  return out;
}

/** Documents published at once by publishTitled: each write waits mostly on fsync. */
const publishBatch = 16;

/**
 * Publishes `/notes/n0.md`… with titles of 24 words of their own, so comparisons are
 * not cached across titles; a batch at a time, so they reach the index in no set order.
 */
export async function publishTitled(fixture: WorldFixture, documents: number): Promise<void> {
  const store = fixture.server.world.context.store;
  const publish = (d: number) => {
    const title = Array.from({ length: 24 }, (_, i) => word(d * 24 + i, 10, 1)).join(' ');
    return store.publish(`/notes/n${d}.md`, Buffer.from(`# ${title}\n\nplain text\n`), {});
  };
  for (let from = 0; from < documents; from += publishBatch) {
    const batch = Array.from({ length: Math.min(publishBatch, documents - from) }, (_, i) => publish(from + i));
    await Promise.all(batch);
  }
}

/** 30 words found in no titled document. */
export const missWords = Array.from({ length: 30 }, (_, i) => word(i, 10, 7));

/** A body LOOKUP that finds nothing, then compares every title. */
export const missMetadata = {
  query: missWords.join(' '),
  match: 'body',
  'nearest-titles': '10',
};
