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
const postTo = (stack: Stack, token: string, body: unknown) =>
  rawRequest(stack.mcpUrl.href, { method: 'POST', headers: mcpHeaders(token), body: JSON.stringify(body) });

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

  const post = (token: string, body: unknown) => postTo(stack, token, body);

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

/*
 * Threat: resources/read and prompts/get went around the per-subject bound on
 * calls in flight (server.mcp.callsPerSubject), which only tools/call passed
 * through: one batch of 60 resources/read ran all at once, each holding up to
 * a 1 MiB document. Run first against that code, this batch of 5 had all 5
 * answered and none refused; so did the prompts/get batch.
 */
describe('security: resources/read and prompts/get queue behind the same per-subject bound as tool calls', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      worlds: ['team-a'],
      brokerConfig: { rateLimit: { disabled: true }, mcpExtra: { callsPerSubject: 1, queuedCallsPerSubject: 1 } },
    });
    const alice = await stack.connect();
    await alice.callTool({
      name: 'mark_publish',
      arguments: { url: 'mark://team-a/notes/read-me.md', body: '# Read me\n\nA note.\n', expected_version: 0 },
    });
  });
  after(async () => stack?.close());

  type Answer = { id: number; result?: unknown; error?: { code: number; message: string } };

  async function batchOf(method: string, params: unknown): Promise<Answer[]> {
    const token = await stack.token(`${method.replace('/', '-')}@example.com`);
    const batch = Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method, params }));
    const answer = await postTo(stack, token, batch);
    assert.equal(answer.status, 200, answer.text);
    const answers = answer.json() as Answer[];
    assert.equal(answers.length, 5);
    return answers;
  }

  function assertSomeRefused(method: string, answers: Answer[]): void {
    const refused = answers.filter((a) => a.error !== undefined);
    assert.ok(refused.length >= 1, `no ${method} of the batch was refused: ${JSON.stringify(answers).slice(0, 300)}`);
    assert.ok(
      answers.some((a) => a.result !== undefined),
      'the first call of the batch still ran',
    );
    for (const a of refused)
      assert.match(
        a.error!.message,
        new RegExp(
          `^${method} refused: 1 of your calls are running and 1 more are waiting; retry once some have answered`,
        ),
      );
  }

  it('refuses the resources/read past one running and one waiting', async () => {
    const answers = await batchOf('resources/read', { uri: 'mark://team-a/notes/read-me.md' });
    assertSomeRefused('resources/read', answers);
  });

  it('refuses the prompts/get past one running and one waiting', async () => {
    const answers = await batchOf('prompts/get', {
      name: 'orient',
      arguments: { url: 'mark://team-a/notes/read-me.md' },
    });
    assertSomeRefused('prompts/get', answers);
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
