import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { InvalidGrantError, LibraryOAuth } from './library-web-client.ts';
import { MemoryOAuthProvider } from './memory-oauth-provider.ts';
import { missingBinaries, startReplicaStack, type ReplicaStack } from './replica-fixture.ts';
import { resultText } from './stack-fixture.ts';
import { skipUnlessInstalled } from '../support/needs-program.ts';
import { UserAgent } from './signin-user-agent.ts';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls `probe` until it answers, for at most 15 s (a bound for a loaded machine, not a measurement). */
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 15 s`);
    await sleep(50);
  }
}
// Under CI a missing haproxy or redis-server fails the tests rather than skipping them.
const skip = skipUnlessInstalled(missingBinaries());
const library = {
  clientId: 'library-web',
  secret: 'library-secret-value',
  redirectUri: 'https://library.example.test/auth/callback',
};

/**
 * Two broker processes behind haproxy (round robin per request), sharing a
 * real redis-server and Secrets on a fake Kubernetes API server
 * (test/e2e/replica-fixture.ts): every flow must come out as with one broker:
 * the device flow, code + PKCE for an MCP SDK client and for a confidential
 * web client, refresh reuse, shared rate limits, Redis down, a killed replica.
 */
describe('two broker replicas behind a load balancer', { skip }, () => {
  let stack: ReplicaStack;
  before(async () => {
    stack = await startReplicaStack({
      brokerConfig: (document) => {
        document.rateLimit.tokens = { perMinute: 6, burst: 20 };
        document.webClients = [
          {
            clientID: library.clientId,
            clientSecretHash: createHash('sha256').update(library.secret).digest('hex'),
            redirectURIs: [library.redirectUri],
            name: 'Library',
            bearer: 'id_token',
          },
        ];
      },
    });
  });
  after(() => stack?.close());

  const authorize = () => stack.post('/device/authorize', { client_id: 'demarkus-cli', scope: 'openid mark.read' });
  const poll = (deviceCode: string, via?: ReplicaStack['replicas']['a']) =>
    stack.post('/oauth/token', { grant_type: deviceGrant, device_code: deviceCode, client_id: 'demarkus-cli' }, via);

  /** A stateless JSON-RPC POST to /mcp through the load balancer. */
  const mcpPost = async (token: string, message: object) => {
    const response = await fetch(stack.resource, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify(message),
    });
    const text = await response.text();
    return { status: response.status, text, headers: response.headers, servedBy: response.headers.get('x-served-by') };
  };
  const callWorlds = (token: string) =>
    mcpPost(token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mark_worlds', arguments: {} } });

  it('runs a device flow across replicas: one token from a code redeemed at the same moment on both', async () => {
    const started = await authorize();
    assert.equal(started.status, 200, JSON.stringify(started.json));
    const grant = started.json as { device_code: string; verification_uri_complete: string };
    const pending = await poll(grant.device_code);
    assert.equal(pending.json.error, 'authorization_pending');
    assert.notEqual(pending.servedBy, started.servedBy, 'the poll went to the other replica');

    // The person: verification page, code entry and IdP callback, each on whichever replica haproxy picks.
    const agent = new UserAgent();
    const form = await agent.go(grant.verification_uri_complete);
    assert.equal(form.status, 200);
    const login = await agent.submit(form, {}, 'action=approve');
    assert.ok(login.url.startsWith(stack.idp.issuer), agent.trace.join(', '));
    const done = await agent.submit(login, { email: 'dana@example.com' });
    assert.equal(done.status, 200, `${agent.trace.join(', ')}\n${done.html.slice(0, 300)}`);
    assert.match(done.html, /Signed in as dana@example\.com/);

    await sleep(250);
    const [onA, onB] = await Promise.all([
      poll(grant.device_code, stack.replicas.a),
      poll(grant.device_code, stack.replicas.b),
    ]);
    const winners = [onA, onB].filter((r) => r.status === 200);
    assert.equal(winners.length, 1, `${JSON.stringify(onA.json)} / ${JSON.stringify(onB.json)}`);
    const loser = [onA, onB].find((r) => r.status !== 200)!;
    assert.equal(loser.status, 400);
    assert.match(String(loser.json.error), /^(invalid_grant|expired_token)$/);
    const tokens = winners[0]!.json as { access_token: string; refresh_token: string };

    // The access token works on both replicas.
    const calls = [await callWorlds(tokens.access_token), await callWorlds(tokens.access_token)];
    assert.deepEqual(
      calls.map((c) => c.status),
      [200, 200],
    );
    assert.deepEqual(new Set(calls.map((c) => c.servedBy)), new Set(['a', 'b']));

    // Refresh on A, then replay the spent refresh token on B: the family is revoked on both.
    const refreshed = await stack.post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'demarkus-cli' },
      stack.replicas.a,
    );
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    const replay = await stack.post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'demarkus-cli' },
      stack.replicas.b,
    );
    assert.equal(replay.status, 400);
    assert.equal(replay.json.error, 'invalid_grant');
    const successor = await stack.post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: String(refreshed.json.refresh_token), client_id: 'demarkus-cli' },
      stack.replicas.a,
    );
    assert.equal(successor.status, 400, 'the reuse on B revoked the family A had just extended');
    assert.equal(successor.json.error, 'invalid_grant');
  });

  it('tells a client polling both replicas at once to slow down (RFC 8628 §3.5)', async () => {
    const grant = (await authorize()).json as { device_code: string };
    // At the same moment, so however slow the machine both polls fall within one interval.
    const answers = await Promise.all([
      poll(grant.device_code, stack.replicas.a),
      poll(grant.device_code, stack.replicas.b),
    ]);
    assert.deepEqual(answers.map((a) => a.json.error).sort(), ['authorization_pending', 'slow_down']);
  });

  it('signs an MCP SDK client in with registration and code + PKCE, its steps spread over both replicas', async () => {
    const redirect = 'http://127.0.0.1:33419/callback';
    const provider = new MemoryOAuthProvider(redirect);
    // Discovery, then RFC 7591 registration: the record waits for its first use in Redis.
    assert.equal(await auth(provider, { serverUrl: stack.resource }), 'REDIRECT');
    const agent = new UserAgent();
    agent.stopAt = redirect;
    const consent = await agent.go(provider.authorizationUrl!.href);
    const login = await agent.submit(consent, {}, 'decision=approve');
    const back = await agent.submit(login, { email: 'erin@example.com' });
    assert.equal(back.status, 0, `no redirect to the client: ${agent.trace.join(', ')}`);
    const code = new URL(back.url).searchParams.get('code');
    assert.ok(code, agent.trace.join(', '));
    assert.equal(await auth(provider, { serverUrl: stack.resource, authorizationCode: code }), 'AUTHORIZED');
    const client = new SdkClient({ name: 'sdk-oauth', version: '1.0.0' });
    await client.connect(new SdkTransport(new URL(stack.resource), { authProvider: provider }));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'mark_fetch'));
    } finally {
      await client.close();
    }
    const calls = [await callWorlds(provider.saved!.access_token), await callWorlds(provider.saved!.access_token)];
    assert.deepEqual(new Set(calls.map((c) => `${c.status} ${c.servedBy}`)), new Set(['200 a', '200 b']));
  });

  it('signs the library web app in (confidential client, code + PKCE) and refreshes on the other replica', async () => {
    const oauth = new LibraryOAuth({
      brokerUrl: stack.issuer,
      clientId: library.clientId,
      clientSecret: library.secret,
      redirectUri: library.redirectUri,
      scopes: ['mark.read'],
    });
    const { authUrl, state, verifier } = await oauth.begin();
    const agent = new UserAgent();
    agent.stopAt = library.redirectUri;
    const idpPage = await agent.go(authUrl);
    const back = await agent.submit(idpPage, { email: 'reader@example.com' });
    assert.equal(back.status, 0, `no redirect to the library: ${agent.trace.join(', ')}`);
    const callback = new URL(back.url);
    assert.equal(callback.searchParams.get('state'), state);
    const tokens = await oauth.exchange(callback.searchParams.get('code')!, verifier);
    // The library's bearer is the id_token; both replicas accept it.
    const calls = [await callWorlds(tokens.idToken), await callWorlds(tokens.idToken)];
    assert.deepEqual(new Set(calls.map((c) => `${c.status} ${c.servedBy}`)), new Set(['200 a', '200 b']));
    const refreshed = await oauth.refresh(tokens.refreshToken);
    assert.equal((await callWorlds(refreshed.idToken)).status, 200);
    // The spent refresh token, wherever it lands, is reuse: refused, and the family with it.
    await assert.rejects(oauth.refresh(tokens.refreshToken), InvalidGrantError);
    await assert.rejects(oauth.refresh(refreshed.refreshToken), InvalidGrantError);
  });

  it('limits a burst split across both replicas once, not once per replica', async () => {
    const token = await stack.token('burst@example.com');
    const answers = [];
    for (let i = 0; i < 40; i++) answers.push(await mcpPost(token, { jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    // Burst 20 at 6 a minute: 20, plus at most a token or two refilled during the burst.
    assert.ok(served.length >= 20 && served.length <= 22, `${served.length} served`);
    assert.equal(served.length + refused.length, 40);
    assert.deepEqual(new Set(refused.map((a) => a.servedBy)), new Set(['a', 'b']), 'both replicas refused');
    assert.ok(Number(refused[0]!.headers.get('retry-after')) >= 1);
  });

  it('keeps bearer tool calls working while Redis is down, answers sign-in with 503, and recovers', async () => {
    const token = await stack.token('outage@example.com');
    await stack.redis.stop();
    try {
      const signIns = [await authorize(), await authorize()];
      for (const answer of signIns) {
        assert.equal(answer.status, 503);
        assert.equal(answer.json.error, 'temporarily_unavailable');
        assert.ok(Number(answer.headers.get('retry-after')) >= 1);
      }
      assert.deepEqual(new Set(signIns.map((s) => s.servedBy)), new Set(['a', 'b']));
      const calls = [await callWorlds(token), await callWorlds(token)];
      for (const call of calls) {
        assert.equal(call.status, 200, call.text);
        assert.match(call.text, /root/);
      }
      assert.deepEqual(new Set(calls.map((c) => c.servedBy)), new Set(['a', 'b']));
      for (const replica of Object.values(stack.replicas)) {
        const metrics = await (await fetch(`${replica.management}/metrics`)).text();
        assert.match(metrics, /broker_rate_limit_local_fallback\{limiter="subject"\} 1/);
      }
    } finally {
      await stack.redis.start();
    }
    // Each replica reconnects on its own backoff (up to 2 s): wait until both answer, for at most 15 s.
    const recovered = new Set<string>();
    let last = await authorize();
    for (let i = 0; recovered.size < 2 && i < 150; i++) {
      if (last.status === 200 && last.servedBy !== null) recovered.add(last.servedBy);
      if (recovered.size < 2) {
        await sleep(100);
        last = await authorize();
      }
    }
    assert.deepEqual(recovered, new Set(['a', 'b']), `both replicas back on Redis; last: ${JSON.stringify(last.json)}`);
  });

  it('notifies a resource subscription made through one replica on the stream the other replica holds', async () => {
    const served: string[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      served.push(`${init?.method ?? 'GET'} ${response.headers.get('x-served-by') ?? '?'}`);
      return response;
    };
    const client = new SdkClient({ name: 'replica-subscriber', version: '1' });
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    const transport = new SdkTransport(new URL(stack.resource), {
      requestInit: { headers: { authorization: `Bearer ${await stack.token('subscriber@example.com')}` } },
      fetch: recording,
    });
    await client.connect(transport);
    // Subscriptions go out until both replicas have taken one: whichever replica holds the
    // client's SSE stream, one of them was then made through the other one. Round robin
    // alternates requests, but the SDK opens that stream on its own schedule, and its GET
    // takes a turn too: two subscriptions in a row can land on the same replica. (The
    // stream's own replica shows only when its first event flushes the response head.)
    const uris: string[] = [];
    const subscribedThrough = new Set<string>();
    for (let i = 1; subscribedThrough.size < 2 && i <= 6; i++) {
      const uri = `mark://root/docs/watched-${i}.md`;
      const before = served.length;
      await client.subscribeResource({ uri });
      uris.push(uri);
      const post = served.slice(before).find((entry) => entry.startsWith('POST '));
      if (post !== undefined) subscribedThrough.add(post);
    }
    assert.deepEqual(subscribedThrough, new Set(['POST a', 'POST b']), served.join(', '));
    for (const uri of uris) {
      const path = new URL(uri).pathname;
      const published = await stack.world.call('PUBLISH', path, { auth: stack.world.tokens.writer! }, '# Watched\n');
      assert.equal(published.status, 'created');
    }
    await until('both updates reached the client', async () =>
      uris.every((uri) => updates.includes(uri)) ? true : undefined,
    );
    assert.ok(
      served.some((s) => s.startsWith('GET ')),
      'the updates came on the GET stream',
    );
    await client.close();
  });

  it('continues an MCP session on the other replica after the one that opened it is SIGKILLed', async () => {
    const servedBy: string[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      servedBy.push(response.headers.get('x-served-by') ?? '?');
      return response;
    };
    const client = new Client({ name: 'replica-e2e', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(stack.resource), {
      requestInit: { headers: { authorization: `Bearer ${await stack.token('session@example.com')}` } },
      fetch: recording,
    });
    await client.connect(transport);
    const opener = servedBy[0] as 'a' | 'b';
    assert.match(opener, /^[ab]$/);
    const sessionId = transport.sessionId;
    assert.ok(sessionId);

    const first = await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://root/docs/guide.md' } });
    assert.doesNotMatch(resultText(first), /status: unchanged/);
    await stack.kill(opener);
    const second = await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://root/docs/guide.md' } });
    assert.equal(transport.sessionId, sessionId, 'no new session');
    assert.equal(servedBy.at(-1), opener === 'a' ? 'b' : 'a');
    // The session's memory came along: the survivor knows the body was already returned.
    assert.match(resultText(second), /status: unchanged/);
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'mark_worlds'));
    await client.close();
  });
});

if (skip !== false) {
  describe('two broker replicas behind a load balancer', () => {
    it(`skipped: ${skip}`, { skip }, () => {});
  });
}
