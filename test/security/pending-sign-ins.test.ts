/**
 * Threat: anonymous requests fill the shared Redis until every write fails.
 * A device authorization with the built-in `demarkus-cli` client needs no
 * registration and leaves two keys (about 674 bytes) for 20 minutes; pending
 * authorizations and IdP round trips likewise. Only the per-address login
 * budget limited them, so about 1,000 IPv6 /64s filled a 256 MiB Redis, and
 * with `maxmemory-policy noeviction` every sign-in and session write failed.
 *
 * The attack succeeded before the fix (checked by running this file against
 * the code before it, with only the `state.maxPendingSignIns` key accepted):
 * all 12 device authorizations were answered 200 and left 24 keys; every
 * pending authorization and round trip was stored.
 *
 * A real redis-server, the real broker over HTTP (startSignInStackOnRedis) and the
 * real flow state on the same Redis, with a small bound.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { FlowState } from '../../src/broker/auth/authorize/flow-state.ts';
import { OAuthError } from '../../src/broker/auth/oauth-error.ts';
import { RedisEphemeralStore } from '../../src/broker/state/index.ts';
import { someAuthorizationRequest } from '../broker/signin/authorization-request.ts';
import { startSignInStackOnRedis, type RedisSignInStack, type SignInStack } from '../e2e/signin-fixture.ts';
import type { RedisServer } from '../support/redis-server.ts';

const bound = 3;

describe('security: pending sign-ins anyone may start are bounded in Redis', () => {
  let started: RedisSignInStack;
  let redis: RedisServer;
  let stack: SignInStack;
  let inspect: Redis;

  before(async () => {
    started = await startSignInStackOnRedis({
      keyPrefix: 'flood:',
      commandTimeout: '1s',
      state: { maxPendingSignIns: bound },
    });
    ({ redis, stack, inspect } = started);
  });
  after(async () => started?.close());

  it('device authorizations past the bound are refused with 503, and the keys stay bounded', async () => {
    const answers = [];
    for (let i = 0; i < 4 * bound; i++)
      answers.push(await stack.post('/device/authorize', { client_id: 'demarkus-cli', scope: 'openid mark.read' }));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [...Array(bound).fill(200), ...Array(3 * bound).fill(503)],
    );
    const refused = answers.at(-1)!;
    assert.equal(refused.json.error, 'temporarily_unavailable');
    assert.match(String(refused.json.error_description), /bound of pending sign-ins.*try again shortly/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 2 * 600, `Retry-After ${retryAfter}`);
    const deviceKeys = await inspect.keys('flood:eph:device:*');
    const userCodeKeys = await inspect.keys('flood:eph:user-code:*');
    assert.equal(deviceKeys.length, bound);
    assert.equal(userCodeKeys.length, bound);
  });

  it('pending authorizations and IdP round trips past the bound are refused as temporarily_unavailable', async () => {
    const client = new Redis({ port: redis.port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    try {
      const store = new RedisEphemeralStore({ client, keyPrefix: 'flows:', maxEntriesPerKind: bound });
      const flows = new FlowState(store, { pendingTtlMs: 600_000, roundTripTtlMs: 600_000, codeTtlMs: 60_000 });
      const request = someAuthorizationRequest;
      const refusedAsBound = (error: unknown) =>
        error instanceof OAuthError && error.status === 503 && error.retryAfterSeconds !== undefined;
      for (let i = 0; i < bound; i++) await flows.savePending(request);
      await assert.rejects(flows.savePending(request), refusedAsBound);
      for (let i = 0; i < bound; i++)
        await flows.saveRoundTrip({ state: `s${i}`, nonce: 'n', codeVerifier: 'v', kind: 'authorize', request });
      await assert.rejects(
        flows.saveRoundTrip({ state: 'one-more', nonce: 'n', codeVerifier: 'v', kind: 'authorize', request }),
        refusedAsBound,
      );
      assert.equal((await inspect.keys('flows:eph:authz:*')).length, bound);
      assert.equal((await inspect.keys('flows:eph:round-trip:*')).length, bound);
    } finally {
      client.disconnect();
    }
  });
});
