import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './stack-fixture.ts';
import { eventually } from '../kubernetes/helpers.ts';

/**
 * `broker_world_connections` (docs/operations.md, metrics table) on the real
 * broker's /metrics: the QUIC connections the broker holds to each world, read
 * from the connection pools when Prometheus scrapes. It was declared and never
 * set, so it had no samples at all.
 */
describe('broker_world_connections', () => {
  let stack: Stack;
  let base: string;
  before(async () => {
    stack = await startStack({ worlds: ['root', 'other'] });
    base = `http://127.0.0.1:${stack.broker.management.port}`;
  });
  after(() => stack.close());

  const connections = async (world: string): Promise<number | undefined> => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const sample = new RegExp(`^broker_world_connections\\{world="${world}"\\} (\\d+)$`, 'm').exec(text);
    return sample === null ? undefined : Number(sample[1]);
  };

  it('counts the WATCH connection of each world, then the pooled one tool calls share', async () => {
    // The broker watches every world from start-up (src/broker/changes/world-watcher.ts), on a connection of its own.
    await eventually(async () => (await connections('root')) === 1, 'the WATCH connection to root');
    await eventually(async () => (await connections('other')) === 1, 'the WATCH connection to other');
    const client = await stack.connect();
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://root/' } });
    assert.equal(await connections('root'), 2, 'three calls share one pooled connection beside the WATCH one');
    assert.equal(await connections('other'), 1, 'a world nobody called has only its WATCH connection');
  });
});
