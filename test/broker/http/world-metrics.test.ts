/**
 * The world series as a scrape shows them, from a real gateway dialling real
 * QUIC worlds through the broker's own adapter (src/broker/world-metrics-adapter.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseBrokerConfig } from '../../../src/broker/config/index.ts';
import { createBrokerMetrics, type BrokerMetrics } from '../../../src/broker/http/metrics.ts';
import { worldMetricsAdapter } from '../../../src/broker/world-metrics-adapter.ts';
import { type MarkWorldGateway, openWorldGateway, WorldUnavailableError } from '../../../src/broker/worlds/index.ts';
import { signingKey } from '../config/fixtures.ts';
import { startTestWorld, worldYaml, writeCaFile, type TestWorld } from '../worlds/world-servers.ts';

describe('world metrics from a real gateway', () => {
  let root: string;
  let down: TestWorld;
  let metrics: BrokerMetrics;
  let gateway: MarkWorldGateway;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'broker-world-metrics-'));
    down = await startTestWorld('down');
    await down.stop();
    const yaml = `
server:
  addr: "127.0.0.1:0"
  publicURL: http://127.0.0.1:8080
  mcp: { addr: "127.0.0.1:0" }
storage: { backend: file, dir: ${JSON.stringify(join(root, 'state'))} }
worldDialer: { caFile: ${JSON.stringify(await writeCaFile(root))}, dialTimeout: 1s, requestTimeout: 4s, failureThreshold: 1, cooldown: 1m }
worlds:
${worldYaml(down)}
`;
    metrics = createBrokerMetrics({ collectDefaults: false });
    gateway = await openWorldGateway(parseBrokerConfig(yaml, { BROKER_SIGNING_KEY: signingKey }), {
      metrics: worldMetricsAdapter(metrics),
    });
    metrics.observeWorlds(() => gateway.worldStates());
  });

  after(async () => {
    await gateway.close();
    await down.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Calls the stopped world until its circuit is open and one call was refused without being sent. */
  async function openCircuit(world: string): Promise<void> {
    for (let tries = 0; tries < 3; tries += 1) {
      const error = await gateway.read(world, { verb: 'LIST', path: '/' }).then(
        () => assert.fail('a stopped world answered'),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof WorldUnavailableError);
      if (error.reason === 'circuit-open') return;
    }
    assert.fail('the circuit did not open');
  }

  /** A discovered world (configured ones are never moved or removed) at the stopped world's address. */
  function discover(name: string): void {
    gateway.registry.upsert({ ...gateway.registry.get('down')!, name });
  }

  const circuitLines = async (world: string) =>
    (await metrics.registry.metrics())
      .split('\n')
      .filter((line) => line.startsWith(`broker_world_circuit_state{world="${world}"`));

  it('shows a routed world never called as closed', async () => {
    discover('idle');
    assert.deepEqual(await circuitLines('idle'), [
      'broker_world_circuit_state{world="idle",state="closed"} 1',
      'broker_world_circuit_state{world="idle",state="open"} 0',
      'broker_world_circuit_state{world="idle",state="half-open"} 0',
    ]);
    gateway.registry.remove('idle');
  });

  it('shows a moved world closed, as the gateway does, once its open connection is dropped', async () => {
    discover('moving');
    await openCircuit('moving');
    assert.match((await circuitLines('moving')).join('\n'), /state="open"\} 1/);
    gateway.registry.upsert({ ...gateway.registry.get('moving')!, address: `127.0.0.1:${down.port + 1}` });
    assert.equal(gateway.circuitState('moving'), 'closed');
    const lines = (await circuitLines('moving')).join('\n');
    assert.match(lines, /state="closed"\} 1/);
    assert.match(lines, /state="open"\} 0/);
  });

  it('counts calls refused by an open circuit as failures without observing a latency for them', async () => {
    discover('refusing');
    const count = async (pattern: RegExp) => Number(pattern.exec(await metrics.registry.metrics())?.[1] ?? 0);
    const failures = /^broker_world_requests_total\{world="refusing",verb="LIST",result="failure"\} (\d+)$/m;
    const observed = /^broker_world_request_duration_seconds_count\{world="refusing",verb="LIST"\} (\d+)$/m;
    await openCircuit('refusing');
    const sent = await count(observed);
    assert.ok(sent >= 1, 'the calls that dialled are observed');
    assert.equal(await count(failures), sent + 1, 'the refused call is counted');
    await openCircuit('refusing');
    assert.equal(await count(observed), sent, 'a refused call adds no 0 s sample');
    assert.equal(await count(failures), sent + 2);
    assert.equal(
      await count(/^broker_world_request_duration_seconds_bucket\{le="0.0005",world="refusing",verb="LIST"\} (\d+)$/m),
      0,
    );
  });

  it('drops every series of the gauges when a world whose circuit is open leaves the registry', async () => {
    discover('leaving');
    await openCircuit('leaving');
    assert.match((await circuitLines('leaving')).join('\n'), /state="open"\} 1/);
    assert.match(await metrics.registry.metrics(), /broker_world_connections\{world="leaving"\} 0/);
    gateway.registry.remove('leaving');
    const text = await metrics.registry.metrics();
    assert.doesNotMatch(text, /broker_world_circuit_state\{world="leaving"/);
    assert.doesNotMatch(text, /broker_world_connections\{world="leaving"/);
    assert.match(text, /broker_world_circuit_state\{world="down",state="closed"\} 1/);
  });
});
