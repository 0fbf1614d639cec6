/**
 * Threat: one subject starves another's folder listing without any flood.
 * Calling mark_fetch back to back, one call at a time (no batch, no
 * concurrency, so no per-subject bound or fair gate applies), it made another
 * subject's mark_list of a 250-document folder fail with `world "team-a" did
 * not answer within 3000 ms`, and mark_doctor report the folder "not
 * examined".
 *
 * The attack succeeded before the fix (checked by running this file against
 * it on 2026-12-07). The time was spent at the world, in its LIST handler:
 * the broker had a stream at once (under 2 ms) and the 5,101-byte answer,
 * once written, arrived within 10 ms. The world checked each entry with
 * about seven filesystem calls one after the other (1,751 for 250 entries,
 * more turns still inside readFile); each call's result waits for a turn of
 * the event loop, and while another client's requests keep the loop busy a
 * turn lasts milliseconds. The listing took 113-700 ms alone and 3.3-4.0 s
 * beside the fetches, over the broker's 1.5 s attempt and 3 s budget. The
 * world now checks entries 32 at a time (src/world/store/listing.ts), so a
 * listing needs about 1/32 of those turns.
 *
 * Real QUIC world, the real broker and the real MCP SDK client for both
 * subjects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';

/** The folder size of the report. */
const documents = 250;

describe("security: one subject's back-to-back fetches do not starve another subject's listing", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ worlds: ['team-a'], brokerConfig: { rateLimit: { disabled: true } } });
    // Written to the store directly: the seeding is not under test.
    const store = stack.worlds.get('team-a')!.server.world.context.store;
    for (let i = 0; i < documents; i += 1)
      await store.publish(
        `/docs/d${i}.md`,
        Buffer.from(`# Doc ${i}\n\nbody ${i}\n`),
        { agent: 'seed' },
        { expectedVersion: 0 },
      );
  });
  after(async () => stack?.close());

  /**
   * Runs `work` for the lister while the fetcher calls mark_fetch back to
   * back, from its first answer until `work` ends; returns the work's result
   * and the fetcher's answers that were not the document.
   */
  async function besideBackToBackFetches<T>(work: () => Promise<T>): Promise<{ result: T; failed: string[] }> {
    const fetcher = await stack.connect(await stack.token('fetcher@example.com'));
    const failed: string[] = [];
    let fetching = true;
    let first: () => void = () => {};
    const firstAnswered = new Promise<void>((resolve) => (first = resolve));
    const fetches = (async () => {
      for (let i = 0; fetching; i += 1) {
        const answer = await fetcher.callTool({
          name: 'mark_fetch',
          arguments: { url: `mark://team-a/docs/d${i % 5}.md`, force: true },
        });
        if (isError(answer) || !/# Doc /.test(resultText(answer))) failed.push(resultText(answer).slice(0, 200));
        first();
      }
    })();
    await firstAnswered;
    try {
      return { result: await work(), failed };
    } finally {
      fetching = false;
      await fetches;
    }
  }

  async function lister(): Promise<Client> {
    return stack.connect(await stack.token('lister@example.com'));
  }

  it('answers mark_list of the whole folder while the other subject fetches back to back', async () => {
    const client = await lister();
    const { result, failed } = await besideBackToBackFetches(() =>
      client.callTool({ name: 'mark_list', arguments: { url: 'mark://team-a/docs/' } }),
    );
    assert.equal(isError(result), false, resultText(result));
    assert.match(resultText(result), new RegExp(`^status: ok\\ncomplete: true\\nentries: ${documents}\\n`));
    assert.deepEqual(failed, []);
  });

  it('examines the folder in mark_doctor while the other subject fetches back to back', async () => {
    const client = await lister();
    const { result, failed } = await besideBackToBackFetches(() =>
      client.callTool({ name: 'mark_doctor', arguments: {} }, undefined, { timeout: 120_000 }),
    );
    assert.equal(isError(result), false, resultText(result));
    const report = (result as { structuredContent?: { status: string; documents: number } }).structuredContent;
    assert.ok(report !== undefined, resultText(result).slice(0, 400));
    assert.equal(report.documents, documents, resultText(result).slice(0, 400));
    assert.doesNotMatch(resultText(result), /Not examined/);
    assert.deepEqual(failed, []);
  });
});
