import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyPluginAsync } from 'fastify';
import { createIssuerApp } from '../../../src/broker/http/issuer-listener.ts';
import { createBrokerMetrics } from '../../../src/broker/http/metrics.ts';

describe('issuer listener', () => {
  it('mounts route plugins (the seam for the sign-in routes) encapsulated', async () => {
    const signIn: FastifyPluginAsync = async (scope) => {
      scope.addHook('onRequest', async (_request, reply) => void reply.header('x-scope', 'sign-in'));
      scope.get('/auth/login', async () => ({ login: true }));
    };
    const app = await createIssuerApp({ metrics: createBrokerMetrics({ collectDefaults: false }), plugins: [signIn] });
    const login = await app.inject({ method: 'GET', url: '/auth/login' });
    assert.deepEqual(login.json(), { login: true });
    assert.equal(login.headers['x-scope'], 'sign-in');
    assert.equal((await app.inject({ method: 'GET', url: '/nope' })).headers['x-scope'], undefined);
    await app.close();
  });

  it('serves no health or metrics: the issuer host is public, they are on the management listener', async () => {
    const metrics = createBrokerMetrics({ collectDefaults: false });
    metrics.observeWorlds(() => [{ world: 'team-secret', circuit: 'open', connections: 1 }]);
    const app = await createIssuerApp({ metrics, plugins: [] });
    for (const url of ['/metrics', '/readyz', '/healthz']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.doesNotMatch(response.body, /team-secret/, url);
    }
    await app.close();
  });
});
