import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  decide,
  DeviceGrants,
  slowDownStepMs,
  type DeviceGrant,
} from '../../../src/broker/auth/device/device-grants.ts';
import { MemoryEphemeralStore } from '../../../src/broker/state/index.ts';

const identity = { subject: 's', email: 'a@example.com', groups: [] };
const base: DeviceGrant = {
  clientId: 'cli',
  scope: 'mark.read',
  resource: 'r',
  userCodeHash: 'hash-of-BCDFGHJK',
  status: 'pending',
  expiresAt: 10_000,
  intervalMs: 1000,
};

describe('device_code polling (RFC 8628 §3.5)', () => {
  it('answers authorization_pending and remembers when the client polled', () => {
    const { outcome, grant } = decide(base, 'cli', 1000);
    assert.equal(outcome.kind, 'authorization_pending');
    assert.equal(grant?.lastPollAt, 1000);
  });

  it('answers slow_down when polled faster than the interval, and adds 5 s to it', () => {
    const { outcome, grant } = decide({ ...base, lastPollAt: 1000 }, 'cli', 1500);
    assert.equal(outcome.kind, 'slow_down');
    assert.equal(grant?.intervalMs, 1000 + slowDownStepMs);
    assert.equal(
      decide(grant!, 'cli', 1500 + 1500).outcome.kind,
      'slow_down',
      'the longer interval holds for later polls',
    );
    assert.equal(decide(grant!, 'cli', 1500 + 6000).outcome.kind, 'authorization_pending');
  });

  it('hands out an approved grant once, then answers invalid_grant', () => {
    const { outcome, grant } = decide({ ...base, status: 'approved', identity }, 'cli', 2000);
    assert.equal(outcome.kind, 'approved');
    assert.equal(grant?.status, 'redeemed');
    assert.equal(decide(grant!, 'cli', 9000).outcome.kind, 'invalid_grant');
  });

  it('answers expired_token after expires_in, access_denied after a refusal, invalid_grant to another client', () => {
    assert.equal(decide(base, 'cli', 10_000).outcome.kind, 'expired_token');
    assert.equal(decide({ ...base, status: 'approved', identity }, 'cli', 10_001).outcome.kind, 'expired_token');
    assert.equal(decide({ ...base, status: 'denied' }, 'cli', 2000).outcome.kind, 'access_denied');
    assert.equal(decide(base, 'other', 2000).outcome.kind, 'invalid_grant');
  });
});

describe('device grants in the short-lived store', () => {
  const setup = () => {
    let now = 0;
    const store = new MemoryEphemeralStore({ now: () => now });
    const grants = new DeviceGrants(store, { ttlMs: 60_000, intervalMs: 5000, now: () => now });
    return { grants, store, advance: (ms: number) => (now += ms) };
  };

  it('finds a pending grant by its user code as typed, and spends the code once approved', async () => {
    const { grants } = setup();
    const { userCode, deviceCode } = await grants.start({ clientId: 'cli', scope: 's', resource: 'r' });
    const found = await grants.findPending(`${userCode.slice(0, 4).toLowerCase()}-${userCode.slice(4)}`);
    assert.ok(found);
    assert.equal(await grants.approve(found.key, identity), true);
    assert.equal(await grants.findPending(userCode), null);
    assert.equal(await grants.deny(found.key), false, 'a settled grant cannot be settled again');
    assert.equal((await grants.poll(deviceCode, 'cli')).kind, 'approved');
  });

  it('reports expired_token for a late poll, and forgets the user code at expiry', async () => {
    const { grants, advance } = setup();
    const { userCode, deviceCode } = await grants.start({ clientId: 'cli', scope: 's', resource: 'r' });
    advance(60_000);
    assert.equal(await grants.findPending(userCode), null);
    assert.equal((await grants.poll(deviceCode, 'cli')).kind, 'expired_token');
    advance(60_000);
    assert.equal(
      (await grants.poll(deviceCode, 'cli')).kind,
      'invalid_grant',
      'gone entirely after twice the lifetime',
    );
  });

  it('keeps neither code in the clear in the store', async () => {
    const { grants, store } = setup();
    const { userCode, deviceCode } = await grants.start({ clientId: 'cli', scope: 's', resource: 'r' });
    assert.equal(await store.get(`device:${deviceCode}`), null);
    assert.equal(await store.get(`user-code:${userCode}`), null);
  });
});
