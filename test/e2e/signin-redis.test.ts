import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import type { RedisServer } from '../support/redis-server.ts';
import { startSignInStackOnRedis, type RedisSignInStack, type SignInStack } from './signin-fixture.ts';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * Sign-in with `state.ephemeral: redis` on a real redis-server: the records
 * live in Redis with a TTL, and while Redis is down the steps that need it
 * answer 503 with `Retry-After` and `temporarily_unavailable`, then work again
 * once it is back, without a broker restart.
 */
describe('sign-in state on a real redis-server', () => {
  let started: RedisSignInStack;
  let redis: RedisServer;
  let stack: SignInStack;
  let inspect: Redis;

  before(async () => {
    // A short command timeout: the steps that need Redis answer 503 soon after it stops.
    started = await startSignInStackOnRedis({ keyPrefix: 'signin-test:', commandTimeout: '500ms' });
    ({ redis, stack, inspect } = started);
  });
  after(async () => started?.close());

  const authorize = () => stack.post('/device/authorize', { client_id: 'demarkus-cli', scope: 'openid mark.read' });

  it('keeps device grants in Redis, each with a TTL', async () => {
    const { status, json } = await authorize();
    assert.equal(status, 200, JSON.stringify(json));
    const keys = await inspect.keys('signin-test:eph:*');
    assert.ok(
      keys.some((key) => key.startsWith('signin-test:eph:device:')),
      keys.join(', '),
    );
    assert.ok(
      keys.some((key) => key.startsWith('signin-test:eph:user-code:')),
      keys.join(', '),
    );
    for (const key of keys) assert.ok((await inspect.pttl(key)) > 0, `${key} has no TTL`);
    const poll = await stack.post('/oauth/token', {
      grant_type: deviceGrant,
      device_code: json.device_code as string,
      client_id: 'demarkus-cli',
    });
    assert.equal(poll.json.error, 'authorization_pending');
  });

  it('answers 503 + Retry-After + temporarily_unavailable while Redis is down, and recovers on its own', async () => {
    const { json: grant } = await authorize();
    await redis.stop();
    const down = await authorize();
    assert.equal(down.status, 503);
    assert.equal(down.json.error, 'temporarily_unavailable');
    assert.match(String(down.json.error_description), /try again/);
    assert.ok(Number(down.headers.get('retry-after')) >= 1, 'Retry-After must be set');
    const poll = await stack.post('/oauth/token', {
      grant_type: deviceGrant,
      device_code: grant.device_code as string,
      client_id: 'demarkus-cli',
    });
    assert.equal(poll.status, 503);
    assert.equal(poll.json.error, 'temporarily_unavailable');
    const page = await fetch(`${stack.issuer}/device?user_code=${String(grant.user_code)}`, { redirect: 'manual' });
    await page.text();
    assert.equal(page.status, 200, 'the verification page itself needs no shared state');

    await redis.start();
    let again = await authorize();
    for (let i = 0; again.status !== 200 && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await authorize();
    }
    assert.equal(again.status, 200, JSON.stringify(again.json));
  });
});
