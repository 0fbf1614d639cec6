import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { Identity } from '../../../src/broker/identity.ts';
import { expirySignal } from '../../../src/broker/http/stream-expiry.ts';

const day = 24 * 3600_000;

function identityUntil(acceptedUntil?: number): Identity {
  return {
    subject: 's',
    email: 'ada@example.com',
    emailVerified: true,
    groups: [],
    issuedBy: 'broker',
    ...(acceptedUntil === undefined ? {} : { acceptedUntil }),
  };
}

/** The part of a ServerResponse the signal watches: its `close` event and `destroyed`. */
function openResponse(): ServerResponse & EventEmitter {
  return Object.assign(new EventEmitter(), { destroyed: false }) as unknown as ServerResponse & EventEmitter;
}

describe('expirySignal: a stream ends when its token is no longer accepted', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());

  it('aborts at the identity’s acceptedUntil, not before', () => {
    const signal = expirySignal(openResponse(), identityUntil(Date.now() + 5000));
    assert.ok(signal !== undefined);
    mock.timers.tick(4999);
    assert.equal(signal.aborted, false);
    mock.timers.tick(1);
    assert.equal(signal.aborted, true);
  });

  it('never aborts once the stream has closed: its timer is cleared', () => {
    const res = openResponse();
    const signal = expirySignal(res, identityUntil(Date.now() + 5000));
    mock.timers.tick(1000);
    res.emit('close');
    mock.timers.tick(10_000);
    assert.equal(signal?.aborted, false);
  });

  it('aborts at once for a token already past it', () => {
    assert.equal(expirySignal(openResponse(), identityUntil(Date.now() - 1))?.aborted, true);
  });

  it('waits out a lifetime longer than one timer can, one timer after another', () => {
    const signal = expirySignal(openResponse(), identityUntil(Date.now() + 40 * day));
    mock.timers.tick(25 * day);
    assert.equal(signal?.aborted, false);
    mock.timers.tick(15 * day);
    assert.equal(signal?.aborted, true);
  });

  it('gives no signal for an identity without an expiry', () => {
    assert.equal(expirySignal(openResponse(), identityUntil()), undefined);
  });
});

describe('expirySignal with the real timers', () => {
  // Node runs a timer longer than 2^31 - 1 ms after 1 ms, with a TimeoutOverflowWarning; the mock timers do not.
  it('arms no timer longer than Node can keep for a token that lives longer', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning.name);
    process.on('warning', onWarning);
    const res = openResponse();
    const signal = expirySignal(res, identityUntil(Date.now() + 40 * day));
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.off('warning', onWarning);
    res.emit('close');
    assert.equal(signal?.aborted, false);
    assert.deepEqual(warnings, []);
  });
});
