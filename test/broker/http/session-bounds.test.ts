import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBrokerMetrics } from '../../../src/broker/http/metrics.ts';
import { startListener, type Harness } from './fixtures.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from './raw-http.ts';

describe('sessions that never send DELETE stay bounded', () => {
  const metrics = createBrokerMetrics({ collectDefaults: false });
  let harness: Harness;
  before(async () => {
    harness = await startListener({
      metrics,
      sessions: { maxSessions: 20, maxSessionsPerSubject: 5 },
      rateLimit: { disabled: true },
    });
  });
  after(() => harness.close());

  async function open(email: string): Promise<string> {
    const response = await rawRequest(harness.url, {
      method: 'POST',
      headers: jsonRpcHeaders(await harness.token(email)),
      body: initializeBody,
    });
    assert.equal(response.status, 200);
    return (response.headers['mcp-session-id'] as string | undefined) ?? '';
  }

  async function status(email: string, sessionId: string): Promise<number> {
    const headers = {
      ...jsonRpcHeaders(await harness.token(email)),
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    };
    return (
      await rawRequest(harness.url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":2,"method":"ping"}' })
    ).status;
  }

  it('keeps at most maxSessions across 200 abandoned sessions; newcomers are served without one', async () => {
    const ids: Array<[string, string]> = [];
    for (let i = 0; i < 200; i += 1) {
      const email = `user${i}@example.com`;
      ids.push([email, await open(email)]);
    }
    assert.equal(harness.listener.sessions.size, 20);
    // Nobody's live session was evicted by someone else's initialize.
    assert.equal(await status(...ids[0]!), 200);
    assert.equal(ids[199]![1], '');
    assert.match(await metrics.registry.metrics(), /broker_mcp_sessions 20/);
  });

  it('keeps at most maxSessionsPerSubject for one subject, replacing its own', async () => {
    await harness.listener.sessions.closeAll();
    const bystander = await open('bystander@example.com');
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) ids.push(await open('greedy@example.com'));
    assert.equal(await status('greedy@example.com', ids[0]!), 404);
    assert.equal(await status('greedy@example.com', ids[2]!), 404);
    assert.equal(await status('greedy@example.com', ids[3]!), 200);
    assert.equal(await status('greedy@example.com', ids[7]!), 200);
    assert.equal(await status('bystander@example.com', bystander), 200);
  });
});
