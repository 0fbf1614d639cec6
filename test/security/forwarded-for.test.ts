/**
 * Threat: a caller picks its own per-address rate-limit key. Behind a proxy
 * the broker trusts, the client's address is what that proxy saw; proxies
 * (nginx `$proxy_add_x_forwarded_for`, HAProxy `option forwardfor`, Envoy,
 * cloud load balancers) append it to whatever `X-Forwarded-For` the client
 * sent, so the leftmost entries are the client's own words.
 *
 * Both attacks below succeeded while the key was the leftmost entry (checked
 * by running this file against it): a new leftmost value per request, and a
 * new address per request from one IPv6 /64 (every host on a LAN or a cloud
 * VM holds at least one), each got a fresh budget every time.
 *
 * The real listener over HTTP; this test process plays the trusted proxy.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startListener } from '../broker/http/fixtures.ts';
import { rawRequest } from '../broker/http/raw-http.ts';

const path = '/.well-known/oauth-protected-resource/mcp';

async function statuses(trustForwardedFor: boolean | number, forwardedFor: (i: number) => string): Promise<number[]> {
  const harness = await startListener({ rateLimit: { ip: { perMinute: 1, burst: 2 }, trustForwardedFor } });
  try {
    const seen: number[] = [];
    for (let i = 0; i < 6; i += 1)
      seen.push((await rawRequest(harness.url, { path, headers: { 'x-forwarded-for': forwardedFor(i) } })).status);
    return seen;
  } finally {
    await harness.close();
  }
}

describe('security: the per-address key is the address the trusted proxy saw', () => {
  it('a client that writes its own X-Forwarded-For entries does not get a new budget per request', async () => {
    // The proxy appends the one address it saw, 198.51.100.7, after the client's forgeries.
    const seen = await statuses(true, (i) => `10.9.${i}.1, 198.51.100.7`);
    assert.deepEqual(seen, [200, 200, 429, 429, 429, 429]);
  });

  it('with two trusted proxies, the address the outer one saw is the key, whatever the client wrote', async () => {
    const seen = await statuses(2, (i) => `10.9.${i}.1, 198.51.100.7, 10.0.0.3`);
    assert.deepEqual(seen, [200, 200, 429, 429, 429, 429]);
  });

  it('separate clients behind the same proxies keep separate budgets', async () => {
    const seen = await statuses(true, (i) => `198.51.100.${i}`);
    assert.deepEqual(seen, [200, 200, 200, 200, 200, 200]);
  });

  it('addresses of one IPv6 /64 share one budget', async () => {
    const seen = await statuses(true, (i) => `2001:db8:1:2::${(i + 1).toString(16)}`);
    assert.deepEqual(seen, [200, 200, 429, 429, 429, 429]);
  });

  it('IPv6 clients in different /64 networks keep separate budgets', async () => {
    const seen = await statuses(true, (i) => `2001:db8:1:${i + 1}::1`);
    assert.deepEqual(seen, [200, 200, 200, 200, 200, 200]);
  });
});
