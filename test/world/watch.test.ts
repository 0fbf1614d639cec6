import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeRequest } from '../../src/protocol/request.ts';
import { parseCursor, type WatchBlock } from '../../src/protocol/watch.ts';
import { startWorldFixture, type WorldFixture } from './world-fixture.ts';

const golden = (name: string) => readFileSync(join(import.meta.dirname, '../golden/watch', name));
const epoch = '0a1b2c3d4e5f';

/** The raw answer of a WATCH, read as it arrives: `expect` waits for exactly the next bytes. */
function rawWatch(world: WorldFixture, metadata: Record<string, string> = {}, path = '/') {
  const controller = new AbortController();
  const request = encodeRequest({ verb: 'WATCH', path, metadata, body: new Uint8Array(0) });
  const chunks = world.client.transport.stream(world.authority, request, controller.signal)[Symbol.asyncIterator]();
  let buffered = Buffer.alloc(0);
  let ended = false;
  return {
    async expect(bytes: Buffer, what: string): Promise<void> {
      while (buffered.length < bytes.length && !ended) {
        const next = await chunks.next();
        if (next.done) ended = true;
        else buffered = Buffer.concat([buffered, next.value]);
      }
      assert.equal(buffered.subarray(0, bytes.length).toString(), bytes.toString(), what);
      buffered = buffered.subarray(bytes.length);
    },
    async ends(): Promise<void> {
      const next = await chunks.next();
      assert.equal(next.done, true, `stream still open: ${next.value ? Buffer.from(next.value).toString() : ''}`);
      assert.equal(buffered.length, 0);
    },
    close: () => controller.abort(),
  };
}

async function firstBlocks(world: WorldFixture, count: number, watch: { path: string; since?: string; auth?: string }) {
  const controller = new AbortController();
  const blocks: WatchBlock[] = [];
  for await (const block of world.client.watch(world.authority, watch, controller.signal)) {
    blocks.push(block);
    if (blocks.length === count) break;
  }
  controller.abort();
  return blocks;
}

describe('WATCH on the TypeScript world over real QUIC (goldens in test/golden/watch)', () => {
  const worlds: WorldFixture[] = [];
  const world = async (
    watch: Record<string, unknown> | false = {},
    tokens?: Parameters<typeof startWorldFixture>[0],
  ) => {
    const fixture = await startWorldFixture({
      ...tokens,
      world: { watch: watch === false ? false : { epoch, heartbeatMs: 60_000, ...watch } },
    });
    worlds.push(fixture);
    return fixture;
  };
  after(async () => {
    for (const fixture of worlds) await fixture.close();
  });

  it('streams the acknowledgement, then one event per committed publish, append and archive, byte for byte', async () => {
    const w = await world();
    const stream = rawWatch(w);
    await stream.expect(golden('01-ack.golden'), 'acknowledgement');
    const auth = w.tokens.writer!;
    const agent = 'alice@example.com';
    assert.equal(
      (await w.call('PUBLISH', '/docs/a.md', { auth, agent, 'expected-version': '0' }, '# A\n')).status,
      'created',
    );
    await stream.expect(golden('02-event-publish.golden'), 'publish event');
    assert.equal(
      (await w.call('APPEND', '/docs/a.md', { auth, agent, 'expected-version': '1' }, 'more\n')).status,
      'created',
    );
    await stream.expect(golden('03-event-append.golden'), 'append event');
    assert.equal((await w.call('ARCHIVE', '/docs/a.md', { auth })).status, 'ok');
    await stream.expect(golden('04-event-archive.golden'), 'archive event');
    // A refused write and a no-op change nothing, so they send nothing; closing the hub ends the stream.
    assert.equal((await w.call('PUBLISH', '/docs/a.md', { 'expected-version': '9' }, 'x')).status, 'unauthorized');
    w.server.world.context.changes!.hub.close();
    await stream.expect(golden('07-closing.golden'), 'closing');
    await stream.ends();
  });

  it('resumes after a cursor, and answers resync for a cursor it cannot honour', async () => {
    const w = await world();
    const auth = w.tokens.writer!;
    const agent = 'alice@example.com';
    await w.call('PUBLISH', '/docs/a.md', { auth, agent, 'expected-version': '0' }, '# A\n');
    await w.call('APPEND', '/docs/a.md', { auth, agent, 'expected-version': '1' }, 'more\n');
    await w.call('ARCHIVE', '/docs/a.md', { auth, agent });
    const resumed = rawWatch(w, { since: `${epoch}:1` });
    await resumed.expect(Buffer.from(`---\ncursor: ${epoch}:1\nstatus: ok\n---\n`), 'acknowledgement at since');
    await resumed.expect(golden('03-event-append.golden'), 'replayed append');
    await resumed.expect(golden('04-event-archive.golden'), 'replayed archive');
    resumed.close();
    for (const since of ['another:1', `${epoch}:4`]) {
      const lost = rawWatch(w, { since });
      await lost.expect(golden('06-resync.golden'), `resync for ${since}`);
      await lost.ends();
    }
    const bad = rawWatch(w, { since: `${epoch}:01` });
    await bad.expect(golden('08-refused-since.golden'), 'invalid since');
    await bad.ends();
  });

  it('answers WATCH unsupported when the world has no change feed, as a Go world without one', async () => {
    const w = await world(false);
    const stream = rawWatch(w);
    await stream.expect(golden('09-refused-unsupported.golden'), 'unsupported');
    await stream.ends();
  });

  it('beats when idle, watches one document or a subtree, and leaves out what the token cannot read', async () => {
    const w = await world(
      { heartbeatMs: 150 },
      {
        tokens: [
          { label: 'writer', paths: ['/**'], operations: ['publish'] },
          { label: 'reader', paths: ['/secret/**'], operations: ['read'] },
        ],
      },
    );
    const auth = w.tokens.writer!;
    const beat = await firstBlocks(w, 2, { path: '/' });
    assert.deepEqual(
      beat.map((b) => [b.status, b.metadata.cursor]),
      [
        ['ok', `${epoch}:0`],
        ['ok', `${epoch}:0`],
      ],
    );
    const controller = new AbortController();
    const seen: string[] = [];
    const subtree = (async () => {
      for await (const block of w.client.watch(w.authority, { path: '/docs/' }, controller.signal)) {
        if (block.status === '') seen.push(block.metadata.path!);
        if (seen.length === 1) break;
      }
    })();
    const everything: string[] = [];
    const root = (async () => {
      for await (const block of w.client.watch(w.authority, { path: '/' }, controller.signal)) {
        if (block.status === '') everything.push(block.metadata.path!);
        if (everything.length === 2) break;
      }
    })();
    // Both watches must be subscribed before the writes: wait for one heartbeat interval.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await w.call('PUBLISH', '/secret/plan.md', { auth, 'expected-version': '0' }, 'hidden\n');
    await w.call('PUBLISH', '/notes.md', { auth, 'expected-version': '0' }, 'n\n');
    await w.call('PUBLISH', '/docs/b.md', { auth, 'expected-version': '0' }, 'b\n');
    await Promise.all([subtree, root]);
    controller.abort();
    assert.deepEqual(seen, ['/docs/b.md']);
    assert.deepEqual(everything, ['/notes.md', '/docs/b.md'], 'the tokenless watch never sees /secret/');
    const refused = await firstBlocks(w, 1, { path: '/secret/' });
    assert.equal(refused[0]!.status, 'unauthorized');
    const allowed = await firstBlocks(w, 1, { path: '/secret/', auth: w.tokens.reader! });
    assert.equal(allowed[0]!.status, 'ok');
    assert.ok(parseCursor(allowed[0]!.metadata.cursor!));
  });

  it('bounds the open watches of a world', async () => {
    const w = await world({ maxWatches: 1 });
    const controller = new AbortController();
    const first = w.client.watch(w.authority, { path: '/' }, controller.signal)[Symbol.asyncIterator]();
    assert.equal((await first.next()).value?.status, 'ok');
    const second = await firstBlocks(w, 1, { path: '/' });
    assert.equal(second[0]!.status, 'rate-limited');
    controller.abort();
    await first.return?.(undefined);
  });
});
