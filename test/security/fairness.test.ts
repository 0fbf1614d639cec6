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
import { after, before, describe, it } from 'node:test';
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
