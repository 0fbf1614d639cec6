/**
 * Threat: one subject starves the others. All calls reach a world from the
 * broker's one address over a few streams; one subject's flood must queue
 * behind itself, and must not open the world's circuit for everyone.
 *
 * Real QUIC worlds, the real broker, the real MCP SDK client for the victim,
 * raw HTTP batches for the flood. Latency ratios are measured by
 * bench/fairness.ts, not asserted here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';
import { jsonRpcHeaders, rawRequest } from '../broker/http/raw-http.ts';
import { floodBatch } from './flood-batch.ts';

describe("security: one subject's flood does not starve another subject", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      worlds: ['root', 'team-a'],
      brokerConfig: { rateLimit: { disabled: true } },
    });
    const alice = await stack.connect();
    for (let i = 0; i < 20; i += 1)
      await alice.callTool({
        name: 'mark_publish',
        arguments: {
          url: `mark://team-a/notes/n${i}.md`,
          body: `# Note ${i}\n\nflood notes ${i}\n`,
          expected_version: 0,
        },
      });
  });
  after(async () => stack?.close());

  it('answers every fetch of the victim during the flood, and keeps the circuit closed', async () => {
    const floodToken = await stack.token('flooder@example.com');
    const victim = await stack.connect(await stack.token('victim@example.com'));
    let flooding = true;
    const flood = (async () => {
      let id = 1;
      const statuses: number[] = [];
      while (flooding) {
        const waves = await Promise.all(
          Array.from({ length: 6 }, (_, wave) =>
            rawRequest(stack.mcpUrl.href, {
              method: 'POST',
              headers: { ...jsonRpcHeaders(floodToken), 'mcp-protocol-version': '2025-11-25' },
              body: JSON.stringify(floodBatch(20, id + wave * 20)),
            }),
          ),
        );
        id += 6 * 20;
        statuses.push(...waves.map((w) => w.status));
      }
      return statuses;
    })();
    const failures: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const answer = await victim.callTool({
        name: 'mark_fetch',
        arguments: { url: `mark://team-a/notes/n${i % 20}.md`, force: true },
      });
      if (isError(answer) || !/Note/.test(resultText(answer))) failures.push(resultText(answer));
    }
    flooding = false;
    const statuses = await flood;
    assert.ok(statuses.length > 0);
    assert.deepEqual(failures, []);
    assert.equal(stack.broker.gateway.circuitState('team-a'), 'closed');
    assert.equal(stack.broker.gateway.circuitState('root'), 'closed');
  });
});

describe("security: one subject's calls queue behind its own (server.mcp.callsPerSubject)", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      worlds: ['team-a'],
      brokerConfig: { rateLimit: { disabled: true }, mcpExtra: { callsPerSubject: 1, queuedCallsPerSubject: 1 } },
    });
  });
  after(async () => stack?.close());

  it("runs one call, queues one, refuses the rest of a batch, and another subject's call still runs", async () => {
    const floodToken = await stack.token('flooder@example.com');
    const batch = rawRequest(stack.mcpUrl.href, {
      method: 'POST',
      headers: { ...jsonRpcHeaders(floodToken), 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(floodBatch(4, 1)),
    });
    const victim = await stack.connect(await stack.token('victim@example.com'));
    const answer = await victim.callTool({ name: 'mark_worlds', arguments: {} });
    assert.equal(isError(answer), false, resultText(answer));
    const answers = (await batch).json() as Array<{ result: { isError?: boolean; content: Array<{ text: string }> } }>;
    assert.equal(answers.length, 4);
    const refused = answers.filter((a) => a.result.isError === true);
    assert.equal(refused.length, 2, JSON.stringify(answers.map((a) => a.result.content[0]!.text.slice(0, 80))));
    for (const a of refused)
      assert.match(
        a.result.content[0]!.text,
        /^mark_search refused: 1 of your calls are running and 1 more are waiting/,
      );
  });
});

/**
 * The world's own rate limit is per client address, and every caller of the
 * broker reaches a world from the broker's address, so they share one budget
 * (docs/security.md, "Fair share of each world"). One caller's mark_doctor,
 * which reads every document it may, spends that budget; the world then makes
 * the broker's further requests wait for their tokens (src/transport/serve-stream.ts,
 * as Go's worldruntime does) rather than refusing them. This runs the worlds at
 * the limit the world chart ships and checks that the victim is slowed at
 * worst, never refused. How much slower is measured, not asserted (the
 * review: a victim's mark_fetch 11-14 ms alone, 86-106 ms during the doctor).
 */
/** Documents the doctor reads: more than the shipped burst, so it spends the budget (checked below). */
const documents = 150;

describe("security: one subject's mark_doctor spends the world's shared rate budget, but refuses no other subject's call", () => {
  let stack: Stack;
  before(async () => {
    const shipped = shippedWorldRateLimit();
    stack = await startStack({
      worlds: ['team-a'],
      brokerConfig: { rateLimit: { disabled: true } },
      worldRateLimit: shipped,
    });
    // Written to the store directly: through the world, the writes would spend the budget under test.
    const store = stack.worlds.get('team-a')!.server.world.context.store;
    for (let i = 0; i < documents; i += 1)
      await store.publish(
        `/docs/d${i}.md`,
        Buffer.from(`# Doc ${i}\n\nbody ${i} [next](/docs/d${i + 1}.md)\n`),
        { agent: 'seed' },
        { expectedVersion: 0 },
      );
  });
  after(async () => stack?.close());

  it("answers every mark_fetch of the victim while the doctor reads past the world's burst", async () => {
    const attacker = await stack.connect(await stack.token('doctor@example.com'));
    const victim = await stack.connect(await stack.token('victim@example.com'));
    let doctoring = true;
    const report = attacker
      .callTool({ name: 'mark_doctor', arguments: {} }, undefined, { timeout: 120_000 })
      .finally(() => (doctoring = false));
    const refused: string[] = [];
    let answered = 0;
    for (let i = 0; doctoring || i < 5; i += 1) {
      // An agent's pace, as the review measured it. Back to back (no pause), the victim's fetches
      // once made the doctor's LIST of /docs/ time out after 3 s, with or without the world's limit:
      // a separate starvation, found with this test on 2026-12-07 and fixed in the world's listing
      // (test/security/listing-starvation.test.ts).
      await delay(200);
      const answer = await victim.callTool({
        name: 'mark_fetch',
        arguments: { url: `mark://team-a/docs/d${i % 5}.md`, force: true },
      });
      if (isError(answer) || !/# Doc /.test(resultText(answer))) refused.push(resultText(answer).slice(0, 200));
      else answered += 1;
    }
    const doctor = await report;
    assert.equal(isError(doctor), false, resultText(doctor));
    const structured = (doctor as { structuredContent?: { status: string; documents: number } }).structuredContent;
    // The doctor read more than the world's burst, so the victim's fetches met a spent budget.
    assert.ok(structured !== undefined && structured.documents >= documents, resultText(doctor).slice(0, 300));
    assert.deepEqual(refused, []);
    assert.ok(answered >= 5);
  });
});

/** The per-address limit charts/demarkus-world/values.yaml gives a world (`server.rateLimit`). */
function shippedWorldRateLimit(): { perSecond: number; burst: number } {
  const values = parse(readFileSync(new URL('../../charts/demarkus-world/values.yaml', import.meta.url), 'utf8')) as {
    server: { rateLimit: { perSecond: number; burst: number } };
  };
  const { perSecond, burst } = values.server.rateLimit;
  assert.ok(perSecond > 0 && burst < documents, 'the chart ships a rate limit the doctor below exceeds');
  return { perSecond, burst };
}
