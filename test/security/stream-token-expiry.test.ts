/**
 * Threat: a caller keeps hearing of changes after its rights have lapsed. A
 * long-lived MCP stream (a 2026-07-28 `subscriptions/listen` or a 2025-era
 * session's standalone GET event stream) is authorised once, when it opens; a
 * stream that outlives the token that opened it goes on delivering
 * `notifications/resources/updated` to someone the broker would now refuse
 * (the token expired: a person removed from the IdP, or whose groups changed,
 * gets no new one).
 *
 * The attack succeeded before the fix (docs/security.md, "How the tests were
 * checked as attacks"): both streams stayed open past the token's expiry and
 * heard both changes. Now each ends, as a complete HTTP response, when its
 * token is no longer accepted, and the client must come back with a fresh one.
 *
 * The real listener over HTTP with a verifier leeway of 0, so "no longer
 * accepted" is the token's own `exp`.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { ResourceSubscriptions } from '../../src/broker/changes/resource-subscriptions.ts';
import { definitions, listingGateway, startListener, type Harness } from '../broker/http/fixtures.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from '../broker/http/raw-http.ts';

const legacyVersion = '2025-11-25';

type Ending = 'end' | 'aborted';

/** An event stream held open over raw HTTP: every JSON-RPC message it carries, and how it ended. */
type HeldStream = { status: number; messages: Array<{ method?: string; params?: any }>; ended: Promise<Ending> };

function holdStream(
  url: string,
  options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<HeldStream> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: options.method,
        headers: options.headers,
      },
      (response) => {
        const messages: HeldStream['messages'] = [];
        let buffered = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffered += chunk;
          const events = buffered.split('\n\n');
          buffered = events.pop() ?? '';
          for (const event of events)
            for (const line of event.split('\n'))
              if (line.startsWith('data: ') && line.length > 6) messages.push(JSON.parse(line.slice(6)));
        });
        // 'end': the chunked body was terminated properly; 'aborted': the connection was cut mid-stream.
        const ended = new Promise<Ending>((done) => {
          response.on('end', () => done('end'));
          response.on('aborted', () => done('aborted'));
          response.on('error', () => done('aborted'));
        });
        resolve({ status: response.statusCode ?? 0, messages, ended });
      },
    );
    outgoing.on('error', reject);
    if (options.body !== undefined) outgoing.write(options.body);
    outgoing.end();
  });
}

/** A 2025-era session opened and subscribed to `uri` with `token`; its id. */
async function subscribedSession(harness: Harness, token: string, uri: string): Promise<string> {
  const opened = await rawRequest(harness.url, {
    method: 'POST',
    headers: jsonRpcHeaders(token),
    body: initializeBody,
  });
  const sessionId = opened.headers['mcp-session-id'] as string;
  const headers = { ...jsonRpcHeaders(token), 'mcp-session-id': sessionId, 'mcp-protocol-version': legacyVersion };
  await rawRequest(harness.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  const subscribed = await rawRequest(harness.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri } }),
  });
  assert.equal(subscribed.status, 200, subscribed.text);
  return sessionId;
}

function sessionStream(harness: Harness, token: string, sessionId: string): Promise<HeldStream> {
  return holdStream(harness.url, {
    method: 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': legacyVersion,
    },
  });
}

function listenStream(harness: Harness, token: string, uri: string): Promise<HeldStream> {
  return holdStream(harness.url, {
    method: 'POST',
    headers: {
      ...jsonRpcHeaders(token),
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: {
        notifications: { resourceSubscriptions: [uri] },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

const updatesIn = (stream: HeldStream): string[] =>
  stream.messages.filter((m) => m.method === 'notifications/resources/updated').map((m) => m.params.uri);

const sleep = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i += 1) await sleep(20);
}

describe('long-lived MCP streams end when the token that opened them expires', () => {
  let harness: Harness;
  let subscriptions: ResourceSubscriptions;
  before(async () => {
    subscriptions = new ResourceSubscriptions();
    harness = await startListener(
      { server: { serverInfo: { name: 't', version: '0' }, definitions, gateway: listingGateway, subscriptions } },
      { clockToleranceSeconds: 0 },
    );
  });
  after(() => harness.close());

  it('a listen stream and a session GET stream stop hearing changes once their token has expired', async () => {
    // Expires 2 to 3 s from now (exp is in whole seconds): time enough to open both streams.
    const shortLived = await harness.token('ada@example.com', { ttlSeconds: 3 });
    const expiresAtMs = (decodeJwt(shortLived).exp as number) * 1000;
    const sessionId = await subscribedSession(harness, shortLived, 'mark://alpha/session.md');
    const get = await sessionStream(harness, shortLived, sessionId);
    const listen = await listenStream(harness, shortLived, 'mark://alpha/listen.md');
    assert.equal(get.status, 200);
    assert.equal(listen.status, 200);
    assert.ok(Date.now() < expiresAtMs, 'the streams opened before the token expired');

    // The streams end at expiry; on the old code they never did, and this waits 5 s past it.
    const endings = Promise.all([get.ended, listen.ended]);
    const settled = await Promise.race([endings, sleep(expiresAtMs + 5000 - Date.now())]);
    subscriptions.changed('alpha', '/session.md');
    subscriptions.changed('alpha', '/listen.md');
    await until(() => settled !== 'timeout' || updatesIn(get).length + updatesIn(listen).length >= 2);

    assert.deepEqual(
      { get: updatesIn(get), listen: updatesIn(listen) },
      { get: [], listen: [] },
      'streams opened with a now expired token heard changes',
    );
    assert.deepEqual(settled, ['end', 'end'], 'both streams ended as complete HTTP responses');
  });

  it('the client comes back with a fresh token: the expired one is refused, the session lives on', async () => {
    const shortLived = await harness.token('kim@example.com', { ttlSeconds: 2 });
    const expiresAtMs = (decodeJwt(shortLived).exp as number) * 1000;
    const sessionId = await subscribedSession(harness, shortLived, 'mark://alpha/again.md');
    const first = await sessionStream(harness, shortLived, sessionId);
    assert.equal(first.status, 200);
    assert.equal(await Promise.race([first.ended, sleep(expiresAtMs + 5000 - Date.now())]), 'end');

    const stale = await rawRequest(harness.url, {
      headers: {
        authorization: `Bearer ${shortLived}`,
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': legacyVersion,
      },
    });
    assert.equal(stale.status, 401);
    assert.match(String(stale.headers['www-authenticate']), /invalid_token/);

    const fresh = await harness.token('kim@example.com');
    const second = await sessionStream(harness, fresh, sessionId);
    assert.equal(second.status, 200);
    subscriptions.changed('alpha', '/again.md');
    await until(() => updatesIn(second).length > 0);
    assert.deepEqual(updatesIn(second), ['mark://alpha/again.md']);
    assert.deepEqual(updatesIn(first), []);
  });
});
