/**
 * Threat: whoever can read the short-lived store (a Redis replica, a backup,
 * `MONITOR`, a memory dump) learns every pending user code and can approve
 * a stranger's device authorization as themselves. The device-grant module
 * promises that neither code is stored in the clear.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): the grant under `device:<hash>` held the user code as `userCode`, in
 * Redis and in memory.
 *
 * The real device grants over a real redis-server and over the memory store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { DeviceGrants } from '../../src/broker/auth/device/device-grants.ts';
import { MemoryEphemeralStore, RedisEphemeralStore } from '../../src/broker/state/index.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';

const request = { clientId: 'demarkus-cli', scope: 'mark.read', resource: 'https://broker.example/mcp' };
const identity = { subject: 's', email: 'a@example.com', groups: [] };

describe('security: a pending user code is not readable from the short-lived store', () => {
  let redis: RedisServer;
  let client: Redis;

  before(async () => {
    redis = await startRedisServer();
    client = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
  });
  after(async () => {
    client?.disconnect();
    await redis?.close();
  });

  it('Redis holds no user code, and the code still finds and approves its grant', async () => {
    const grants = new DeviceGrants(new RedisEphemeralStore({ client, keyPrefix: 'rest:' }), {
      ttlMs: 600_000,
      intervalMs: 5000,
    });
    const { userCode } = await grants.start(request);
    const keys = await client.keys('rest:*');
    for (const key of keys) {
      assert.ok(!key.includes(userCode), key);
      const type = await client.type(key);
      const value = type === 'string' ? await client.get(key) : JSON.stringify(await client.zrange(key, '0', '-1'));
      assert.ok(!String(value).includes(userCode), `${key} holds the user code: ${value}`);
    }
    const found = await grants.findPending(userCode);
    assert.ok(found);
    assert.equal(await grants.approve(found.key, identity), true);
    assert.equal(await grants.findPending(userCode), null, 'the code is spent');
  });

  it('the memory store holds no user code either', async () => {
    const store = new MemoryEphemeralStore();
    const grants = new DeviceGrants(store, { ttlMs: 600_000, intervalMs: 5000 });
    const { userCode, deviceCode } = await grants.start(request);
    const found = await grants.findPending(userCode);
    assert.ok(found);
    assert.ok(!JSON.stringify(await store.get(found.key)).includes(userCode));
    assert.ok(!JSON.stringify(found.grant).includes(userCode));
    assert.equal(found.userCode, userCode, 'the typed code, for the confirmation page');
    assert.ok(deviceCode.length > 0);
  });
});
