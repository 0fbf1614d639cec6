import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Deadline } from '../../src/concurrency/deadline.ts';

describe('Deadline', () => {
  it('aborts with a TimeoutError once its time passes, as AbortSignal.timeout does', async () => {
    const deadline = new Deadline(20);
    const native = AbortSignal.timeout(20);
    assert.equal(deadline.signal.aborted, false);
    await delay(60);
    assert.equal(deadline.signal.aborted, true);
    assert.equal(deadline.timedOut, true);
    const reason = deadline.signal.reason as DOMException;
    const nativeReason = native.reason as DOMException;
    assert.ok(reason instanceof DOMException);
    assert.deepEqual(
      [reason.name, reason.message, reason.code],
      [nativeReason.name, nativeReason.message, nativeReason.code],
    );
  });

  it("aborts with a linked signal's reason when that signal aborts first, and is then not timed out", () => {
    const caller = new AbortController();
    const deadline = new Deadline(10_000, undefined, caller.signal);
    const reason = new Error('caller gave up');
    caller.abort(reason);
    assert.equal(deadline.signal.aborted, true);
    assert.equal(deadline.signal.reason, reason);
    assert.equal(deadline.timedOut, false);
    deadline.end();
  });

  it('starts aborted when a linked signal already is, and holds no listener on it', () => {
    const closing = new AbortController();
    const open = new AbortController();
    closing.abort('closed');
    const deadline = new Deadline(10_000, open.signal, closing.signal);
    assert.equal(deadline.signal.aborted, true);
    assert.equal(deadline.signal.reason, 'closed');
    assert.equal(getEventListeners(open.signal, 'abort').length, 0, 'the listener on the open signal is gone');
  });

  it('once ended, neither the clock nor a linked signal aborts it, and the linked signal is let go', async () => {
    const closing = new AbortController();
    const deadlines = Array.from({ length: 100 }, () => new Deadline(20, closing.signal));
    assert.equal(getEventListeners(closing.signal, 'abort').length, 100);
    for (const deadline of deadlines) deadline.end();
    assert.equal(
      getEventListeners(closing.signal, 'abort').length,
      0,
      'a long-lived signal keeps no trace of ended work',
    );
    await delay(60);
    closing.abort();
    for (const deadline of deadlines) {
      assert.equal(deadline.signal.aborted, false);
      assert.equal(deadline.timedOut, false);
    }
    const ended = deadlines[0] as Deadline;
    ended.end();
    assert.equal(ended.signal.aborted, false, 'end() twice is harmless');
  });

  it('does not keep the process alive while it waits', () => {
    // Node lists as active only what keeps the event loop alive; an unreferenced timer is not listed.
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const deadline = new Deadline(60_000);
    assert.equal(timers(), before, 'a pending deadline keeps no timer alive');
    deadline.end();
  });
  it('abort calls the work off with its reason, and is not a time-out', () => {
    const deadline = new Deadline(10_000);
    const reason = new Error('the peer left');
    deadline.abort(reason);
    assert.equal(deadline.signal.aborted, true);
    assert.equal(deadline.signal.reason, reason);
    assert.equal(deadline.timedOut, false);
    deadline.end();
  });

  it('after stopClock the time no longer aborts it, while a linked signal still does', async () => {
    const closing = new AbortController();
    const deadline = new Deadline(20, closing.signal);
    deadline.stopClock();
    await delay(60);
    assert.equal(deadline.signal.aborted, false);
    assert.equal(deadline.timedOut, false);
    closing.abort('closed');
    assert.equal(deadline.signal.reason, 'closed');
    deadline.end();
  });
});
