import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WatchDecoder, type WatchBlock } from '../../../src/protocol/watch.ts';
import { WorldWatcher, type ChangeNotice } from '../../../src/broker/changes/world-watcher.ts';
import type { WorldChangeSource } from '../../../src/broker/worlds/gateway.ts';

const golden = (name: string) => readFileSync(join(import.meta.dirname, '../../golden/watch', name));

/** A world's stream played from the goldens through the client's own decoder; then it waits until closed. */
function playedSource(streams: Buffer[][]): WorldChangeSource & { opened: Array<{ since?: string }> } {
  const opened: Array<{ since?: string }> = [];
  return {
    opened,
    async *watch(_world, watch, signal): AsyncGenerator<WatchBlock> {
      opened.push(watch.since === undefined ? {} : { since: watch.since });
      const parts = streams.shift() ?? [];
      const decoder = new WatchDecoder();
      for (const part of parts) {
        decoder.push(part);
        for (let block = decoder.next(); block !== null; block = decoder.next()) {
          yield block;
          if (block.status !== '' && block.status !== 'ok') return;
        }
      }
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    },
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await sleep(10);
  assert.ok(check());
}

describe('the broker watcher, fed the WATCH goldens', () => {
  it('turns events into change notices and resumes from the last cursor after the stream ends', async () => {
    const source = playedSource([
      ['01-ack.golden', '02-event-publish.golden', '03-event-append.golden', '07-closing.golden'].map(golden),
      [golden('01-ack.golden')],
    ]);
    const watcher = new WorldWatcher({ source, retryMinMs: 1 });
    const notices: ChangeNotice[] = [];
    watcher.onNotice((notice) => notices.push(notice));
    watcher.sync(['team-a']);
    await until(() => source.opened.length === 2);
    watcher.close();
    assert.deepEqual(notices, [
      { kind: 'change', world: 'team-a', path: '/docs/a.md', op: 'publish', version: 1 },
      { kind: 'change', world: 'team-a', path: '/docs/a.md', op: 'append', version: 2 },
    ]);
    assert.deepEqual(source.opened, [{}, { since: '0a1b2c3d4e5f:2' }]);
  });

  it('reports a resync and resumes from the head it names', async () => {
    const source = playedSource([[golden('06-resync.golden')], [golden('01-ack.golden')]]);
    const watcher = new WorldWatcher({ source, retryMinMs: 1 });
    const notices: ChangeNotice[] = [];
    watcher.onNotice((notice) => notices.push(notice));
    watcher.sync(['team-a']);
    await until(() => watcher.watching('team-a'));
    watcher.close();
    assert.deepEqual(notices, [{ kind: 'resync', world: 'team-a' }]);
    assert.deepEqual(source.opened, [{}, { since: '0a1b2c3d4e5f:3' }]);
  });

  it('leaves a world that answers WATCH unsupported to polling', async () => {
    const source = playedSource([[golden('09-refused-unsupported.golden')]]);
    const watcher = new WorldWatcher({ source, unsupportedRetryMs: 60_000 });
    watcher.sync(['go-world']);
    await until(() => watcher.state('go-world') === 'unsupported');
    assert.equal(watcher.watching('go-world'), false);
    assert.equal(source.opened.length, 1);
    watcher.close();
  });

  it('reopens a stream that stalls (no block for the stall interval)', async () => {
    const source = playedSource([[golden('01-ack.golden')], [golden('01-ack.golden')]]);
    const watcher = new WorldWatcher({ source, stallMs: 50, retryMinMs: 1 });
    watcher.sync(['team-a']);
    await until(() => source.opened.length === 2);
    assert.deepEqual(source.opened[1], { since: '0a1b2c3d4e5f:0' });
    watcher.close();
  });

  it('stops watching a world that leaves the registry', async () => {
    const source = playedSource([[golden('01-ack.golden')]]);
    const watcher = new WorldWatcher({ source });
    watcher.sync(['team-a']);
    await until(() => watcher.watching('team-a'));
    watcher.sync([]);
    assert.equal(watcher.state('team-a'), undefined);
    watcher.close();
  });
});
