/**
 * Threat: one device code or authorization code handed out twice. Two polls
 * of an approved device code race (or two redemptions of a code); the loser's
 * compare-and-set fails, and its retry finds the entry gone (Redis evicted it
 * under `maxmemory-policy volatile-ttl`, which docs/operations.md allows, or it
 * expired in between). `RedisEphemeralStore.update` then returns null without
 * applying anything, but the caller had already taken its outcome from the
 * first run of its change, so the loser too was told "approved" (tokens
 * issued again) or "redeemed", and an approval that was never stored was
 * reported as given.
 *
 * All three attacks below succeeded before the fix (checked by running this
 * file against it): the poll answered `approved`, the redemption `redeemed`
 * and the approval `true`, each after its entry was gone.
 *
 * The real device grants and flow state over the real Redis store on a real
 * redis-server. A second client deletes the entry between the store's GET and
 * its compare-and-set, as eviction would: the store's client is the real one,
 * wrapped so that its next GET of one key is followed by that DEL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { FlowState } from '../../src/broker/auth/authorize/flow-state.ts';
import { DeviceGrants } from '../../src/broker/auth/device/device-grants.ts';
import { sha256Hex } from '../../src/broker/auth/secrets.ts';
import { RedisEphemeralStore } from '../../src/broker/state/index.ts';
import { someAuthorizationRequest } from '../broker/signin/authorization-request.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';

const prefix = 'vanish:';
const identity = { subject: 's', email: 'a@example.com', groups: [] };
const request = someAuthorizationRequest;

/** The real client, except that once `evictAfterNextGet(key)` is armed, the next GET of that key is followed by `other` deleting it. */
function evictingClient(client: Redis, other: Redis): { client: Redis; evictAfterNextGet(entry: string): void } {
  let armed: string | undefined;
  const wrapped = new Proxy(client, {
    get(target, property) {
      if (property === 'get')
        return async (key: string) => {
          const value = await target.get(key);
          if (key === armed) {
            armed = undefined;
            assert.equal(await other.del(key), 1, 'the entry was there to delete');
          }
          return value;
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    client: wrapped,
    evictAfterNextGet(entry) {
      armed = `${prefix}eph:${entry}`;
    },
  };
}

describe('security: an update whose entry vanished before its compare-and-set reports nothing applied', () => {
  let redis: RedisServer;
  let storeClient: Redis;
  let other: Redis;
  let evicting: ReturnType<typeof evictingClient>;
  let store: RedisEphemeralStore;

  before(async () => {
    redis = await startRedisServer();
    storeClient = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    other = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    evicting = evictingClient(storeClient, other);
    store = new RedisEphemeralStore({ client: evicting.client, keyPrefix: prefix });
  });
  after(async () => {
    storeClient?.disconnect();
    other?.disconnect();
    await redis?.close();
  });

  it('a poll of an approved device code whose grant vanished is not approved', async () => {
    const grants = new DeviceGrants(store, { ttlMs: 600_000, intervalMs: 0 });
    const { deviceCode, userCode } = await grants.start({ clientId: 'cli', scope: 'mark.read', resource: 'r' });
    const found = await grants.findPending(userCode);
    assert.ok(found);
    assert.equal(await grants.approve(found.key, identity), true);
    evicting.evictAfterNextGet(`device:${sha256Hex(deviceCode)}`);
    const outcome = await grants.poll(deviceCode, 'cli');
    assert.notEqual(outcome.kind, 'approved');
    assert.equal(outcome.kind, 'invalid_grant');
  });

  it('an approval whose grant vanished is not reported as given', async () => {
    const grants = new DeviceGrants(store, { ttlMs: 600_000, intervalMs: 0 });
    const { userCode } = await grants.start({ clientId: 'cli', scope: 'mark.read', resource: 'r' });
    const found = await grants.findPending(userCode);
    assert.ok(found);
    evicting.evictAfterNextGet(found.key);
    assert.equal(await grants.approve(found.key, identity), false);
  });

  it('a redemption of a code whose record vanished is not redeemed', async () => {
    const flows = new FlowState(store, { pendingTtlMs: 60_000, roundTripTtlMs: 60_000, codeTtlMs: 60_000 });
    const code = await flows.issueCode(request, identity, Date.now());
    evicting.evictAfterNextGet(`code:${sha256Hex(code)}`);
    const outcome = await flows.redeemCode(code);
    assert.equal(outcome.kind, 'unknown');
  });
});
