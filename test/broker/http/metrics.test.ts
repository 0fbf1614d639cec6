import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBrokerMetrics, type WorldState } from '../../../src/broker/http/metrics.ts';
import { startListener } from './fixtures.ts';
import { jsonRpcHeaders, rawRequest } from './raw-http.ts';

describe('broker metrics recorders', () => {
  it('shows one circuit state per world as 1 and the others as 0, read at each scrape', async () => {
    const metrics = createBrokerMetrics({ collectDefaults: false });
    let states: WorldState[] = [{ world: 'alpha', circuit: 'open', connections: 0 }];
    metrics.observeWorlds(() => states);
    assert.match(await metrics.registry.metrics(), /broker_world_circuit_state\{world="alpha",state="open"\} 1/);
    states = [{ world: 'alpha', circuit: 'half-open', connections: 1 }];
    const text = await metrics.registry.metrics();
    assert.match(text, /broker_world_circuit_state\{world="alpha",state="half-open"\} 1/);
    assert.match(text, /broker_world_circuit_state\{world="alpha",state="open"\} 0/);
    assert.match(text, /broker_world_circuit_state\{world="alpha",state="closed"\} 0/);
  });

  it('records world latency', async () => {
    const metrics = createBrokerMetrics({ collectDefaults: false });
    metrics.recordWorldRequest('beta', 'LOOKUP', 0.003, true);
    const text = await metrics.registry.metrics();
    assert.match(text, /broker_world_request_duration_seconds_count\{world="beta",verb="LOOKUP"\} 1/);
    assert.match(text, /broker_world_requests_total\{world="beta",verb="LOOKUP",result="ok"\} 1/);
  });

  it('reads the world gauges from their source at each scrape, so a world gone leaves no series', async () => {
    const metrics = createBrokerMetrics({ collectDefaults: false });
    let states: WorldState[] = [
      { world: 'beta', circuit: 'closed', connections: 2 },
      { world: 'gamma', circuit: 'open', connections: 1 },
    ];
    metrics.observeWorlds(() => states);
    let text = await metrics.registry.metrics();
    assert.match(text, /broker_world_connections\{world="beta"\} 2/);
    assert.match(text, /broker_world_connections\{world="gamma"\} 1/);
    states = [{ world: 'beta', circuit: 'closed', connections: 1 }];
    text = await metrics.registry.metrics();
    assert.match(text, /broker_world_connections\{world="beta"\} 1/);
    assert.doesNotMatch(text, /world="gamma"/);
  });

  it('counts failed checks of world documents by world and path', async () => {
    const metrics = createBrokerMetrics({ collectDefaults: false });
    metrics.recordKnowledgeCheckFailure('root', '/.well-known/demarkus/policy.md');
    metrics.recordKnowledgeCheckFailure('root', '/.well-known/demarkus/policy.md');
    assert.match(
      await metrics.registry.metrics(),
      /broker_knowledge_check_failures_total\{world="root",path="\/\.well-known\/demarkus\/policy\.md"\} 2/,
    );
  });

  it("counts graph read checks the world's budget refused, by world", async () => {
    const metrics = createBrokerMetrics({ collectDefaults: false });
    metrics.recordGraphReadChecksRefused('team-a', 70);
    metrics.recordGraphReadChecksRefused('team-a', 5);
    metrics.recordGraphReadChecksRefused('root', 1);
    const text = await metrics.registry.metrics();
    assert.match(text, /broker_graph_read_checks_refused_total\{world="team-a"\} 75/);
    assert.match(text, /broker_graph_read_checks_refused_total\{world="root"\} 1/);
  });

  it('keeps registries apart, so two brokers in one process do not collide', async () => {
    const a = createBrokerMetrics({ collectDefaults: false });
    const b = createBrokerMetrics({ collectDefaults: false });
    a.recordToolCall('x', 0.1, 'ok');
    assert.doesNotMatch(await b.registry.metrics(), /tool="x"/);
  });

  it('counts tool calls by outcome and HTTP requests of the MCP listener', async () => {
    const metrics = createBrokerMetrics({ collectDefaults: false });
    const harness = await startListener({ metrics });
    try {
      const token = await harness.token();
      for (const name of ['echo', 'refuse', 'explode']) {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: name === 'echo' ? { text: 'x' } : {} },
        });
        assert.equal(
          (await rawRequest(harness.url, { method: 'POST', headers: jsonRpcHeaders(token), body })).status,
          200,
        );
      }
      const text = await metrics.registry.metrics();
      assert.match(text, /broker_tool_calls_total\{tool="echo",outcome="ok"\} 1/);
      assert.match(text, /broker_tool_calls_total\{tool="refuse",outcome="tool_error"\} 1/);
      assert.match(text, /broker_tool_calls_total\{tool="explode",outcome="exception"\} 1/);
      assert.match(text, /broker_tool_call_duration_seconds_count\{tool="echo"\} 1/);
      assert.match(
        text,
        /broker_http_request_duration_seconds_count\{listener="mcp",method="POST",route="\/mcp",status="200"\} 3/,
      );
    } finally {
      await harness.close();
    }
  });
});
