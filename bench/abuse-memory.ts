/**
 * The broker's memory under abusive sign-in and session traffic: anonymous
 * RFC 7591 registrations of the largest accepted size, then 60 subjects each
 * opening 21 MCP sessions (1,260, past the 1,000 cap). Heap and resident
 * memory are read after a forced collection, before and after each flood,
 * against the state of a warmed-up broker in the same process. The real
 * broker and IdP in one process (test/e2e/signin-fixture.ts), no Redis.
 *
 * Run: `node --expose-gc bench/abuse-memory.ts [registrations]` (default 3000).
 */
import { mintBrokerToken } from '../src/broker/auth/mint-broker-token.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from '../test/broker/http/raw-http.ts';
import { startSignInStack } from '../test/e2e/signin-fixture.ts';

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function settled(): Promise<{ heap: number; rss: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 3; i += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

const registrations = Number(process.argv[2] ?? 3000);
const stack = await startSignInStack({
  brokerConfig: (document) => {
    document.rateLimit = { ...document.rateLimit, disabled: true };
  },
});
try {
  // The largest record the broker accepts: 4 KiB in all (docs/security.md, "Limits and defaults").
  const uris = Array.from(
    { length: 10 },
    (_, i) => `https://client.example.net/${String(i).padStart(2, '0')}/${'c'.repeat(300)}`,
  );
  const register = () =>
    fetch(`${stack.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: uris, token_endpoint_auth_method: 'none', client_name: 'x'.repeat(200) }),
    }).then(async (answer) => {
      await answer.body?.cancel();
      return answer.status;
    });
  const token = (email: string) =>
    mintBrokerToken({
      key: stack.broker.trust.key,
      issuer: stack.broker.trust.issuer,
      audience: stack.broker.trust.resource,
      email,
      hostedDomain: 'example.com',
    });
  const initialize = async (bearer: string) =>
    (
      await rawRequest(stack.resource, {
        method: 'POST',
        headers: { ...jsonRpcHeaders(bearer), 'mcp-protocol-version': '2025-11-25' },
        body: initializeBody,
      })
    ).status;

  for (let i = 0; i < 20; i += 1) await register();
  for (let i = 0; i < 20; i += 1) await initialize(await token(`warm${i}@example.com`));
  const baseline = await settled();

  const statuses = new Map<number, number>();
  for (let i = 0; i < registrations; i += 20) {
    const wave = await Promise.all(Array.from({ length: 20 }, register));
    for (const status of wave) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const afterRegistrations = await settled();

  for (let s = 0; s < 60; s += 1) {
    const bearer = await token(`flood${s}@example.com`);
    await Promise.all(Array.from({ length: 21 }, () => initialize(bearer)));
  }
  const afterSessions = await settled();
  const sessions = stack.broker.mcp.listener.sessions.size;

  console.log(`baseline (warmed up)              heap ${mib(baseline.heap)} MiB   rss ${mib(baseline.rss)} MiB`);
  console.log(
    `after ${registrations} registrations of 4 KiB  heap +${mib(afterRegistrations.heap - baseline.heap)} MiB   rss +${mib(afterRegistrations.rss - baseline.rss)} MiB   answers ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`,
  );
  console.log(
    `after 60 subjects × 21 sessions   heap +${mib(afterSessions.heap - afterRegistrations.heap)} MiB   rss +${mib(afterSessions.rss - afterRegistrations.rss)} MiB   sessions held ${sessions}`,
  );
} finally {
  await stack.close();
}
