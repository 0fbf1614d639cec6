import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renewSharedSessions, type McpEndpoint } from '../../../src/broker/http/mcp-endpoint.ts';
import type { FoundSession } from '../../../src/broker/http/shared-sessions.ts';

/** An endpoint with only what the renewal uses: the directory's `touch`, the store's `drop` and `peek` (no copy here), the error log. */
function endpointWith(touch: (id: string) => Promise<FoundSession | null>) {
  const dropped: string[] = [];
  const logged: string[] = [];
  const endpoint = {
    shared: { touch },
    sessions: { drop: (id: string) => void dropped.push(id), peek: () => undefined },
    logError: (_error: unknown, message: string) => void logged.push(message),
  } as unknown as McpEndpoint;
  return { endpoint, dropped, logged };
}

describe('renewSharedSessions', () => {
  it('asks the directory about every streaming session at once, not one after another', async () => {
    const asked: string[] = [];
    const answers: Array<() => void> = [];
    const { endpoint } = endpointWith((id) => {
      asked.push(id);
      return new Promise((resolve) => answers.push(() => resolve(null)));
    });
    const renewing = renewSharedSessions(endpoint, ['a', 'b', 'c']);
    assert.deepEqual(asked, ['a', 'b', 'c']);
    for (const answer of answers) answer();
    await renewing;
  });

  it('still renews, and ends the ended, when one session cannot be renewed', async () => {
    const { endpoint, dropped, logged } = endpointWith(async (id) => {
      if (id === 'a') throw new Error('directory unavailable');
      return id === 'c' ? { subject: 'ada', initialize: {}, revision: 0 } : null;
    });
    const renewed = await renewSharedSessions(endpoint, ['a', 'b', 'c']);
    assert.deepEqual(dropped, ['b']);
    assert.equal(logged.length, 1);
    // Only the renewed one counts as used: the store asks about 'a' again at its next sweep.
    assert.deepEqual([...renewed], ['c']);
  });
});
