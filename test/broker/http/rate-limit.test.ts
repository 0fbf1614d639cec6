import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBrokerMetrics } from '../../../src/broker/http/metrics.ts';
import { startListener, type Harness } from './fixtures.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from './raw-http.ts';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('per-subject rate limit on /mcp', () => {
  const c = clock();
  const metrics = createBrokerMetrics({ collectDefaults: false });
  let harness: Harness;
  before(async () => {
    harness = await startListener({ metrics, rateLimit: { subject: { perMinute: 60, burst: 2 }, now: c.now } });
  });
  after(() => harness.close());

  const ping = async (email: string) =>
    rawRequest(harness.url, {
      method: 'POST',
      headers: jsonRpcHeaders(await harness.token(email)),
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });

  it('charges initialize too, then answers 429 with Retry-After and a JSON-RPC body', async () => {
    const headers = jsonRpcHeaders(await harness.token('ada@example.com'));
    assert.equal((await rawRequest(harness.url, { method: 'POST', headers, body: initializeBody })).status, 200);
    assert.equal((await ping('ada@example.com')).status, 200);
    const refused = await ping('ada@example.com');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    assert.deepEqual(refused.json(), {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'rate limit exceeded' },
      id: null,
    });
  });

  it('spends no budget on refused requests', async () => {
    for (let i = 0; i < 5; i += 1) assert.equal((await ping('ada@example.com')).status, 429);
    c.advance(1000);
    assert.equal((await ping('ada@example.com')).status, 200);
    assert.equal((await ping('ada@example.com')).status, 429);
  });

  it('keeps other subjects unaffected', async () => {
    assert.equal((await ping('grace@example.com')).status, 200);
  });

  it('does not charge requests that fail authentication', async () => {
    for (let i = 0; i < 5; i += 1)
      assert.equal(
        (await rawRequest(harness.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
          .status,
        401,
      );
    assert.equal((await ping('lin@example.com')).status, 200);
  });

  it('counts rejections in the metrics', async () => {
    const text = await metrics.registry.metrics();
    assert.match(text, /broker_rate_limit_rejections_total\{limiter="subject",route="\/mcp"\} 7/);
  });
});

describe('per-IP rate limit on unauthenticated routes', () => {
  const path = '/.well-known/oauth-protected-resource/mcp';

  it('keys by the X-Forwarded-For entry the trusted proxy appended when trusted', async () => {
    const harness = await startListener({ rateLimit: { ip: { perMinute: 1, burst: 1 }, trustForwardedFor: true } });
    try {
      const get = (xff: string) => rawRequest(harness.url, { path, headers: { 'x-forwarded-for': xff } });
      assert.equal((await get('10.0.0.1, 203.0.113.1')).status, 200);
      const refused = await get('203.0.113.1');
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '60');
      assert.deepEqual(refused.json(), { error: 'rate_limited', error_description: 'rate limit exceeded' });
      assert.equal((await get('203.0.113.1, 203.0.113.2')).status, 200);
    } finally {
      await harness.close();
    }
  });

  it('ignores X-Forwarded-For unless trusted', async () => {
    const harness = await startListener({ rateLimit: { ip: { perMinute: 1, burst: 1 } } });
    try {
      assert.equal(
        (await rawRequest(harness.url, { path, headers: { 'x-forwarded-for': '203.0.113.1' } })).status,
        200,
      );
      assert.equal(
        (await rawRequest(harness.url, { path, headers: { 'x-forwarded-for': '203.0.113.9' } })).status,
        429,
      );
    } finally {
      await harness.close();
    }
  });

  it('applies no limits when disabled', async () => {
    const harness = await startListener({ rateLimit: { disabled: true, ip: { perMinute: 1, burst: 1 } } });
    try {
      for (let i = 0; i < 5; i += 1) assert.equal((await rawRequest(harness.url, { path })).status, 200);
    } finally {
      await harness.close();
    }
  });
});
