import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChangeHub } from '../../src/world/change-hub.ts';

// A world admits up to `maxWatches` (256 by default) watchers, each waiting on
// the hub between changes; Node's leak warning at 11 listeners was printed to
// the world's log as soon as an eleventh watcher waited.
test('a hub with more than ten waiting watchers wakes them all and warns of no leak', async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    const hub = new ChangeHub();
    const waiting = Array.from({ length: 32 }, () => hub.changed(new AbortController().signal));
    hub.publish({ path: '/a.md', version: 1, op: 'publish' });
    await Promise.all(waiting);
    // Process warnings are emitted on the next turn.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
  } finally {
    process.off('warning', onWarning);
  }
});
