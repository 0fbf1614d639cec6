import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createManagementApp, type ReadinessChecks } from '../../../src/broker/http/management.ts';
import { createBrokerMetrics } from '../../../src/broker/http/metrics.ts';

describe('management listener', () => {
  it('answers /healthz with 200 whatever readiness says', async () => {
    const app = await createManagementApp({
      metrics: createBrokerMetrics({ collectDefaults: false }),
      ready: () => ({ worlds: false }),
    });
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, 'ok\n');
    await app.close();
  });

  it('answers /readyz 503 naming what is not up, then 200 once everything is', async () => {
    const checks: ReadinessChecks = { listeners: true, signer: false, worlds: false };
    const app = await createManagementApp({
      metrics: createBrokerMetrics({ collectDefaults: false }),
      ready: () => checks,
    });
    const before = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(before.statusCode, 503);
    assert.equal(before.body, 'not ready: signer, worlds\n');
    assert.equal(before.headers['cache-control'], 'no-store');
    checks.signer = true;
    checks.worlds = true;
    const afterwards = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(afterwards.statusCode, 200);
    assert.equal(afterwards.body, 'ready\n');
    await app.close();
  });

  it('names a failing check by the reason it gives, when it gives one', async () => {
    const app = await createManagementApp({
      metrics: createBrokerMetrics({ collectDefaults: false }),
      ready: () => ({ listeners: false, serving: 'draining' }),
    });
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(response.statusCode, 503);
    assert.equal(response.body, 'not ready: listeners, draining\n');
    await app.close();
  });

  it('answers /readyz 503 when the check throws or checks nothing', async () => {
    const throwing = await createManagementApp({
      metrics: createBrokerMetrics({ collectDefaults: false }),
      ready: async () => {
        throw new Error('registry gone');
      },
    });
    assert.equal((await throwing.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
    await throwing.close();
    const empty = await createManagementApp({
      metrics: createBrokerMetrics({ collectDefaults: false }),
      ready: () => ({}),
    });
    assert.equal((await empty.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
    await empty.close();
  });

  it('serves /metrics in the Prometheus text format with the broker series', async () => {
    const metrics = createBrokerMetrics();
    metrics.recordToolCall('mark_fetch', 0.004, 'ok');
    metrics.recordWorldRequest('alpha', 'FETCH', 0.002, false);
    const app = await createManagementApp({ metrics, ready: () => ({ up: true }) });
    await app.inject({ method: 'GET', url: '/healthz' });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], metrics.registry.contentType);
    assert.match(response.body, /^broker_tool_calls_total\{tool="mark_fetch",outcome="ok"\} 1$/m);
    assert.match(response.body, /^broker_world_requests_total\{world="alpha",verb="FETCH",result="failure"\} 1$/m);
    assert.match(
      response.body,
      /^broker_http_request_duration_seconds_count\{listener="management",method="GET",route="\/healthz",status="200"\} 1$/m,
    );
    assert.match(response.body, /^broker_process_cpu_seconds_total /m);
    await app.close();
  });

  it('answers /metrics 404 when serveMetrics is false (metrics.enabled: false)', async () => {
    const metrics = createBrokerMetrics({ collectDefaults: false });
    metrics.recordToolCall('mark_fetch', 0.004, 'ok');
    const app = await createManagementApp({ metrics, serveMetrics: false, ready: () => ({ up: true }) });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 404);
    assert.doesNotMatch(response.body, /broker_tool_calls_total/);
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    await app.close();
  });

  it('answers unknown routes with a JSON 404', async () => {
    const app = await createManagementApp({
      metrics: createBrokerMetrics({ collectDefaults: false }),
      ready: () => ({ up: true }),
    });
    const response = await app.inject({ method: 'GET', url: '/nope' });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { error: 'not_found', error_description: 'no such route' });
    await app.close();
  });
});
