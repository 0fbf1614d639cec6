/**
 * Threat: a client reaching the broker directly picks its own per-address
 * rate-limit key. The chart set `rateLimit.trustForwardedFor: true` whatever
 * the install, but only its Ingress (`ingress.enabled`, off by default) puts a
 * proxy in front that appends the address it saw. Reached directly (a
 * LoadBalancer Service, the NetworkPolicy off), the broker took the rightmost
 * `X-Forwarded-For` entry, which the client wrote itself: a new header per
 * request was a new budget per request, the attack of forwarded-for.test.ts
 * with no proxy at all.
 *
 * The attack succeeded against the chart's default render before the fix
 * (checked by running this file against it): six requests, six 200s.
 *
 * The real chart rendered by the real helm, its config loaded by the broker's
 * own loader, and the real MCP listener run with that config's setting; this
 * test process is the client, talking straight to the broker.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBrokerConfig, type BrokerConfig } from '../../src/broker/config/index.ts';
import { startListener } from '../broker/http/fixtures.ts';
import { rawRequest } from '../broker/http/raw-http.ts';
import { signingKeyFile } from '../charts/matrix.ts';
import { one, template } from '../charts/render.ts';

const path = '/.well-known/oauth-protected-resource/mcp';
const minimal = { server: { publicURL: 'https://broker.example.com' }, worlds: [{ name: 'root' }] };
const ingress = { enabled: true, host: 'broker.example.com', mcp: { host: 'knowledge.example.com' } };

async function renderedConfig(values: Record<string, unknown>): Promise<BrokerConfig> {
  const rendered = await template({
    chart: 'demarkus-broker',
    release: 'demarkus-broker',
    values: [minimal, values],
    setFiles: { 'oidc.brokerSigningKey': signingKeyFile },
  });
  assert.equal(rendered.code, 0, rendered.stderr);
  const secret = one(rendered.objects, 'Secret', 'demarkus-broker-config');
  return parseBrokerConfig(
    Buffer.from((secret.data as Record<string, string>)['config.yaml']!, 'base64').toString('utf8'),
    {},
  );
}

describe('security: the chart trusts X-Forwarded-For only behind the proxy it deploys', () => {
  it('a client straight to a default install (no Ingress) cannot pick its per-address budget', async () => {
    const config = await renderedConfig({});
    const harness = await startListener({
      rateLimit: { ip: { perMinute: 1, burst: 2 }, trustForwardedFor: config.rateLimit.trustForwardedFor },
    });
    try {
      const seen: number[] = [];
      for (let i = 0; i < 6; i += 1)
        seen.push((await rawRequest(harness.url, { path, headers: { 'x-forwarded-for': `203.0.113.${i}` } })).status);
      assert.deepEqual(seen, [200, 200, 429, 429, 429, 429]);
    } finally {
      await harness.close();
    }
  });

  it("trusts the one proxy in front when the chart's Ingress is on", async () => {
    assert.equal((await renderedConfig({ ingress })).rateLimit.trustForwardedFor, true);
  });

  it('keeps an explicit value either way: false behind the Ingress, true or a proxy count without it', async () => {
    const explicit = await Promise.all([
      renderedConfig({ ingress, rateLimit: { trustForwardedFor: false } }),
      renderedConfig({ rateLimit: { trustForwardedFor: true } }),
      renderedConfig({ rateLimit: { trustForwardedFor: 2 } }),
    ]);
    assert.deepEqual(
      explicit.map((config) => config.rateLimit.trustForwardedFor),
      [false, true, 2],
    );
  });
});
