import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { WorldServer } from '../../src/world/world-server.ts';
import { blackHole, type BlackHole } from '../support/black-hole.ts';
import { startLoopbackWorldServer } from '../world/world-fixture.ts';
import { isError, resultText, startBrokerFront, startStack, type BrokerFront, type Stack } from './stack-fixture.ts';

type WorldRow = { name: string; health: { state: string; since?: string; last_error?: string } };

async function worlds(client: Client): Promise<{ text: string; rows: WorldRow[] }> {
  const result = await client.callTool({ name: 'mark_worlds', arguments: {} });
  return { text: resultText(result), rows: (result.structuredContent as { worlds: WorldRow[] }).worlds };
}

async function readyz(front: BrokerFront): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${front.broker.management.port}/readyz`);
  return { status: response.status, body: await response.text() };
}

/** A down world fails fast and says so; health shows in mark_worlds and /readyz (real broker, real MCP client, real QUIC). */
describe('world health: a world that does not answer', () => {
  let stack: Stack;
  let front: BrokerFront;
  let client: Client;
  let hole: BlackHole;

  before(async () => {
    stack = await startStack({ worlds: ['root'] });
    hole = await blackHole();
    const root = stack.worlds.get('root')!;
    front = await startBrokerFront(
      stack.dir,
      [root, { name: 'gone', port: hole.port, tokensFile: join(stack.dir, 'gone-tokens.toml') }],
      {
        brokerConfig: {
          worldDialer: {
            caFile: join(stack.dir, 'ca.pem'),
            dialTimeout: '1s',
            requestTimeout: '20s',
            failureThreshold: 3,
            // Long enough that no background probe runs during the fail-fast checks below.
            cooldown: '1h',
          },
        },
      },
    );
    client = await front.connect();
  });

  after(async () => {
    await front.close();
    hole.close();
    await stack.close();
  });

  it('shows a world whose change stream answered as up, one never reached as unknown, and the broker as ready', async () => {
    // No tool has been called: root's only answers are its WATCH stream's (the broker opens one per world).
    let ready = await readyz(front);
    for (let tries = 0; tries < 100 && !ready.body.includes('root: up'); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ready = await readyz(front);
    }
    assert.equal(ready.status, 200);
    assert.match(ready.body, /^ready\nroot: up since \d{4}-\d\d-\d\dT\S+\ngone: unknown \(not called yet\)\n$/);
  });

  it('answers the first call after one dial timeout, naming the world and what failed, not its address', async () => {
    const result = await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://gone/index.md' } });
    assert.equal(isError(result), true);
    assert.match(resultText(result), /world "gone" is unavailable: it did not accept a connection within 1000 ms/);
    assert.ok(!resultText(result).includes(String(hole.port)), resultText(result));
    assert.ok(hole.dials() > 0, 'the broker dialled the world');
  });

  it('then fails fast: no dial is made to the world, and the answer says since when and that other worlds answer', async () => {
    // Dials, not packets: the first call's dial may still retransmit its Initial packet after it gave up.
    // The change watcher keeps redialling the world by itself with a backoff (src/broker/changes/world-watcher.ts):
    // that is how a world's return is noticed, and not a call. Under load one of its redials landed in this
    // window, so it is stopped first, and a turn of the loop lets a datagram it already sent arrive.
    front.broker.watcher.close();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => setImmediate(resolve));
    const before = hole.dials();
    const result = await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://gone/index.md' } });
    assert.equal(isError(result), true);
    assert.match(
      resultText(result),
      /world "gone" is down since \d{4}-\d\d-\d\dT\S+ \(it did not accept a connection within 1000 ms\); failing fast/,
    );
    const search = await client.callTool({ name: 'mark_search', arguments: { query: 'anything at all' } });
    assert.match(resultText(search), /^status: partial\n/);
    assert.match(resultText(search), /gone.*is down since/);
    assert.equal(hole.dials(), before, 'no dial was made to a world whose circuit is open');
  });

  it('has mark_doctor say why it could not examine the down world, not that it read 0 of 0 documents', async () => {
    const result = await client.callTool({ name: 'mark_doctor', arguments: {} });
    const { status, not_examined } = result.structuredContent as {
      status: string;
      not_examined: Array<{ world: string; reason: string }>;
    };
    assert.equal(status, 'partial');
    assert.equal(not_examined.length, 1, resultText(result));
    assert.equal(not_examined[0]!.world, 'gone');
    assert.match(
      not_examined[0]!.reason,
      /^listing incomplete: \/: world "gone" is down since \S+ \(it did not accept/,
    );
    assert.doesNotMatch(not_examined[0]!.reason, /0 of 0/);
    assert.match(resultText(result), /\| gone \| listing incomplete: \/: world "gone" is down since/);
  });

  it('shows the world as down in mark_worlds and /readyz, and stays ready while root answers', async () => {
    await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://root/index.md' } });
    const { text, rows } = await worlds(client);
    const gone = rows.find((row) => row.name === 'gone')!;
    assert.equal(gone.health.state, 'down');
    assert.match(gone.health.since ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.equal(gone.health.last_error, 'it did not accept a connection within 1000 ms');
    assert.equal(rows.find((row) => row.name === 'root')!.health.state, 'up');
    assert.match(text, /\| gone \|.*\| down since \S+: it did not accept a connection within 1000 ms \|\n/);
    const ready = await readyz(front);
    assert.equal(ready.status, 200);
    assert.match(ready.body, /^root: up since \S+$/m);
    assert.match(ready.body, /^gone: down since \S+ \(it did not accept a connection within 1000 ms\)$/m);
  });

  it('stays ready when no world answers (every pod sees the same worlds), and says which do not', async () => {
    await stack.stopWorld('root');
    try {
      for (let i = 0; i < 3 && front.broker.gateway.health('root')?.state !== 'down'; i++)
        await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://root/index.md' } });
      assert.equal(front.broker.gateway.health('root')?.state, 'down');
      const ready = await readyz(front);
      assert.equal(ready.status, 200);
      assert.match(ready.body, /^ready\n/);
      assert.match(ready.body, /^root: down since /m);
    } finally {
      await stack.restartWorld('root');
    }
  });
});

describe('world health: the broker probes a down world by itself', () => {
  let stack: Stack;
  let front: BrokerFront;
  let client: Client;
  let hole: BlackHole;
  let revived: WorldServer | undefined;

  before(async () => {
    stack = await startStack({ worlds: ['root'] });
    hole = await blackHole();
    front = await startBrokerFront(
      stack.dir,
      [stack.worlds.get('root')!, { name: 'gone', port: hole.port, tokensFile: join(stack.dir, 'gone-tokens.toml') }],
      {
        brokerConfig: {
          worldDialer: {
            caFile: join(stack.dir, 'ca.pem'),
            dialTimeout: '1s',
            requestTimeout: '20s',
            cooldown: '200ms',
          },
        },
      },
    );
    client = await front.connect();
  });

  after(async () => {
    await front.close();
    await revived?.close();
    await stack.close();
  });

  it('sends probes without any call, and marks the world up when it answers again', async () => {
    const first = await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://gone/index.md' } });
    assert.equal(isError(first), true);
    assert.equal(front.broker.gateway.health('gone')?.state, 'down');
    // Probes arrive with no call from anyone.
    const seen = hole.dials();
    await waitFor(() => hole.dials() > seen, 'a background probe dials the world');
    // The world comes back on the same address; the next probe finds it.
    hole.close();
    const tokensFile = join(stack.dir, 'gone-tokens.toml');
    await writeFile(tokensFile, '[tokens]\n');
    revived = await startLoopbackWorldServer({
      name: 'gone',
      root: join(stack.dir, 'gone-root'),
      tokensFile,
      port: hole.port,
    });
    await waitFor(() => front.broker.gateway.health('gone')?.state === 'up', 'the world is up again');
    const again = await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://gone/missing.md' } });
    assert.match(resultText(again), /^status: not-found\n/);
  });
});

/** Polls until `done` (bounded: the test fails rather than hang), without asserting how long it took. */
async function waitFor(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`gave up waiting: ${what}`);
}
