/**
 * Threat: one caller's search query blocks the broker's event loop. A query
 * is split into fields and each field is trimmed of its non-word edges before
 * its word runs are taken (src/search/query-terms.ts); `mark_search` takes a
 * query of any length, and the broker parses it on the event loop every other
 * caller shares.
 *
 * The attack below succeeded while the trim was one regular expression,
 * `/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu` (checked by running this file against
 * it): its unanchored second branch is tried at every position of a run of
 * punctuation that a letter ends, so a field of 40,000 such characters took
 * 2.4 s and one of a megabyte could not finish within the bound.
 *
 * The bound without a timing threshold is test/support/run-in-child.ts's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInChild } from '../support/run-in-child.ts';

const search = new URL('../../src/search/index.ts', import.meta.url);

describe('security: a search query is parsed in time linear in its length', () => {
  it('a megabyte of punctuation between two letters is one field parsed at once', async () => {
    const terms = await runInChild({ s: search }, "return s.parseQuery('ab' + fill('!') + 'cd').map((t) => t.text);");
    assert.deepEqual(terms, ['ab', 'cd']);
  });

  it('a megabyte of punctuation before a word is trimmed at once', async () => {
    const terms = await runInChild({ s: search }, "return s.parseQuery(fill('!') + 'word').map((t) => t.text);");
    assert.deepEqual(terms, ['word']);
  });
});
