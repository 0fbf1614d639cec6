/**
 * Threat: one subject spends more than its share. The per-subject budget must
 * count JSON-RPC messages, not HTTP requests, so batching cannot multiply it.
 *
 * Real QUIC worlds, the real broker, raw HTTP for the batch (the SDK client
 * does not batch).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startStack, type Stack } from '../e2e/stack-fixture.ts';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RefreshTokens } from '../../src/broker/auth/tokens/refresh-tokens.ts';
import { FileStateStore } from '../../src/broker/state/index.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from '../broker/http/raw-http.ts';

const toolCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'mark_worlds', arguments: {} },
});
const mcpHeaders = (token: string) => ({ ...jsonRpcHeaders(token), 'mcp-protocol-version': '2025-11-25' });

describe('security: budgets count JSON-RPC calls', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      worlds: ['team-a'],
      // A refill of one a minute: the arithmetic below must not depend on how long the calls take.
      brokerConfig: { rateLimit: { tokens: { perMinute: 1, burst: 30 } } },
    });
  });
  after(async () => stack?.close());

  async function post(token: string, body: unknown) {
    return rawRequest(stack.mcpUrl.href, { method: 'POST', headers: mcpHeaders(token), body: JSON.stringify(body) });
  }

  it('refuses a batch bigger than the burst whole, without running any of it', async () => {
    const token = await stack.token('batcher@example.com');
    const answer = await post(
      token,
      Array.from({ length: 100 }, (_, i) => toolCall(i + 1)),
    );
    assert.equal(answer.status, 413, answer.text);
    assert.match(answer.json().error.message, /exceeds the per-subject burst of 30/);
  });

  it('charges a batch one unit per call: 3 batches of 10 spend the burst of 30', async () => {
    const token = await stack.token('counted@example.com');
    const batch = Array.from({ length: 10 }, (_, i) => toolCall(i + 1));
    // Three requests of ten: 30 calls, the whole burst (the fourth request's first unit is gone).
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await post(token, batch)).status);
    assert.deepEqual(statuses.slice(0, 2), [200, 200]);
    assert.equal(statuses[3], 429);
    const single = await post(token, toolCall(99));
    assert.equal(single.status, 429);
    assert.ok(Number(single.headers['retry-after']) >= 1);
  });

  it('does not charge one subject for another', async () => {
    const answer = await post(await stack.token('bystander@example.com'), toolCall(1));
    assert.equal(answer.status, 200, answer.text);
  });
});

describe("security: one subject cannot evict another subject's sessions", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      worlds: ['team-a'],
      brokerConfig: { rateLimit: { disabled: true } },
    });
  });
  after(async () => stack?.close());

  // 51 subjects at their own cap of 20 hold 1,020 sessions, past the 1,000 in total: the flood
  // reaches the global cap, where only the newcomer may go without (src/broker/http/session-store.ts).
  it('keeps a live session while 51 other subjects each open 21, past the total cap', async () => {
    const victim = await stack.connect(await stack.token('victim@example.com'));
    for (let s = 0; s < 51; s += 1) {
      const token = await stack.token(`flooder${s}@example.com`);
      await Promise.all(
        Array.from({ length: 21 }, () =>
          rawRequest(stack.mcpUrl.href, { method: 'POST', headers: mcpHeaders(token), body: initializeBody }),
        ),
      );
    }
    const answer = await victim.callTool({ name: 'mark_worlds', arguments: {} });
    assert.equal((answer as { isError?: boolean }).isError ?? false, false);
    assert.equal(stack.broker.mcp.listener.sessions.size, 1000, 'the flood did reach the total cap');
  });
});

describe('security: refresh-token families are bounded per user', () => {
  it('lets one user signing in again and again evict only their own families', async () => {
    const store = new FileStateStore(await mkdtemp(join(tmpdir(), 'demarkus-families-')));
    const tokens = new RefreshTokens(store, { ttlMs: 3_600_000, maxFamilies: 100, maxFamiliesPerUser: 5 });
    const grant = (subject: string) => ({
      clientId: 'app',
      identity: { subject, email: `${subject}@example.com`, groups: [] },
      scope: 'mark.read',
      resource: 'https://mcp.example/mcp',
    });
    const victims = await Promise.all(['v1', 'v2', 'v3'].map((s) => tokens.issue(grant(s))));
    for (let i = 0; i < 300; i += 1) await tokens.issue(grant('mallory'));
    assert.equal(await tokens.familyCount(), 3 + 5);
    for (const victim of victims) assert.equal((await tokens.rotate(victim.token, 'app')).kind, 'rotated');
  });

  it('at the global cap, takes from the largest holder, not from light users', async () => {
    const store = new FileStateStore(await mkdtemp(join(tmpdir(), 'demarkus-families-')));
    const tokens = new RefreshTokens(store, { ttlMs: 3_600_000, maxFamilies: 10, maxFamiliesPerUser: 5 });
    const grant = (subject: string) => ({
      clientId: 'app',
      identity: { subject, email: `${subject}@example.com`, groups: [] },
      scope: 'mark.read',
      resource: 'https://mcp.example/mcp',
    });
    const light = await tokens.issue(grant('light'));
    for (const heavy of ['h1', 'h2']) for (let i = 0; i < 5; i += 1) await tokens.issue(grant(heavy));
    assert.equal(await tokens.familyCount(), 10);
    assert.equal((await tokens.rotate(light.token, 'app')).kind, 'rotated');
  });
});
