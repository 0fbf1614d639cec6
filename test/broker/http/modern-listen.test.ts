import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mintBrokerToken } from '../../../src/broker/auth/mint-broker-token.ts';
import { authInfoFor } from '../../../src/broker/http/auth-info.ts';
import { guardListens } from '../../../src/broker/http/modern-listen.ts';
import { ResourceSubscriptions } from '../../../src/broker/changes/resource-subscriptions.ts';
import { definitions, issuer, listingGateway, startListener, type Harness } from './fixtures.ts';

/** 2026-07-28 `subscriptions/listen` (docs/decisions.md, "subscriptions/listen delivers the worlds' changes"). */

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One listen over raw HTTP: its status and its first message (the acknowledgement, or the error). */
async function rawListen(
  url: string,
  token: string,
  /** Normally a list of URIs; anything else, to see what a malformed filter meets. */
  resourceSubscriptions: unknown,
  signal?: AbortSignal,
  id: string | number = 'listen-1',
): Promise<{ status: number; first: any; response: Response }> {
  const response = await fetch(url, {
    method: 'POST',
    ...(signal === undefined ? {} : { signal }),
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions }, _meta: envelope },
    }),
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
    return { status: response.status, first: await response.json().catch(() => undefined), response };
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return { status: response.status, first: data === undefined ? undefined : JSON.parse(data.slice(6)), response };
}

async function modernClient(harness: Harness, email = 'lin@example.com'): Promise<Client> {
  const client = new Client({ name: 'modern', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(harness.url), {
      requestInit: { headers: { authorization: `Bearer ${await harness.token(email)}` } },
    }),
  );
  return client;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(condition(), what);
}

describe('subscriptions/listen for resources', () => {
  let harness: Harness;
  let subscriptions: ResourceSubscriptions;
  // Who subscribed with each URI, and who was dropped: every server's close drops its own too.
  const subscribers = new Map<string, object>();
  const drops = new Set<object>();
  before(async () => {
    subscriptions = new ResourceSubscriptions({ perSession: 4 });
    const subscribe = subscriptions.subscribe.bind(subscriptions);
    subscriptions.subscribe = (session, uri, ...rest) => {
      subscribers.set(uri, session);
      return subscribe(session, uri, ...rest);
    };
    const drop = subscriptions.drop.bind(subscriptions);
    subscriptions.drop = (session) => {
      drops.add(session);
      drop(session);
    };
    harness = await startListener({
      server: { serverInfo: { name: 't', version: '0' }, definitions, gateway: listingGateway, subscriptions },
    });
  });
  after(() => harness.close());

  it('delivers a change a world reports to a stream that listens for the document, by the URI it used', async () => {
    const client = await modernClient(harness);
    assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
    const sub = await client.listen({ resourceSubscriptions: ['mark://alpha/a.md', 'mark://beta/b.md#top'] });
    assert.deepEqual(sub.honoredFilter.resourceSubscriptions, ['mark://alpha/a.md', 'mark://beta/b.md#top']);
    subscriptions.changed('alpha', '/a.md');
    subscriptions.changed('alpha', '/other.md');
    subscriptions.changed('beta', '/b.md');
    await until(() => updates.length >= 2, 'both listened documents notified');
    assert.deepEqual(updates.sort(), ['mark://alpha/a.md', 'mark://beta/b.md#top']);
    await sub.close();
    await client.close();
  });

  it('sends a change once to each of two streams listening for the same URI', async () => {
    const first = await modernClient(harness);
    const second = await modernClient(harness, 'kim@example.com');
    const heard: string[] = [];
    first.setNotificationHandler('notifications/resources/updated', () => void heard.push('first'));
    second.setNotificationHandler('notifications/resources/updated', () => void heard.push('second'));
    const a = await first.listen({ resourceSubscriptions: ['mark://alpha/shared.md'] });
    const b = await second.listen({ resourceSubscriptions: ['mark://alpha/shared.md'] });
    subscriptions.changed('alpha', '/shared.md');
    await until(() => heard.length >= 2, 'both streams notified');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(heard.sort(), ['first', 'second']);
    await a.close();
    await b.close();
    await first.close();
    await second.close();
  });

  it('stops watching a URI once the last stream listening for it has closed', async () => {
    const client = await modernClient(harness);
    const sub = await client.listen({ resourceSubscriptions: ['mark://alpha/closing.md'] });
    const watcher = subscribers.get('mark://alpha/closing.md');
    assert.ok(watcher !== undefined && !drops.has(watcher));
    await sub.close();
    await until(() => drops.has(watcher), 'the URI is dropped from the change feed');
    await client.close();
  });

  it('refuses URIs resources/subscribe refuses: unknown worlds and URIs that are not mark://', async () => {
    const token = await harness.token();
    const unknown = await rawListen(harness.url, token, ['mark://alpha/a.md', 'mark://nowhere/x.md']);
    assert.equal(unknown.status, 200);
    // The SDK's ResourceNotFoundError: -32602 on every revision, its data exactly { uri }.
    assert.equal(unknown.first.error.code, -32602);
    assert.deepEqual(unknown.first.error.data, { uri: 'mark://nowhere/x.md' });
    assert.match(unknown.first.error.message, /Resource not found: mark:\/\/nowhere\/x\.md/);
    const foreign = await rawListen(harness.url, token, ['https://evil.example/x']);
    assert.equal(foreign.first.error.code, -32602);
    assert.match(foreign.first.error.message, /invalid resource URI/);
    const tooMany = await rawListen(
      harness.url,
      token,
      ['/1', '/2', '/3', '/4', '/5'].map((p) => `mark://alpha${p}`),
    );
    assert.equal(tooMany.first.error.code, -32600);
  });

  it('needs mark.read to listen for resources, not to listen for list changes', async () => {
    const writeOnly = await mintBrokerToken({
      key: harness.key,
      issuer,
      audience: harness.resource,
      email: 'ada@example.com',
      scope: 'mark.write',
    });
    const refused = await rawListen(harness.url, writeOnly, ['mark://alpha/a.md']);
    assert.equal(refused.status, 403);
    // Deny on doubt: a filter naming resources in a shape the SDK will refuse still needs mark.read.
    const malformed = await rawListen(harness.url, writeOnly, 'mark://alpha/a.md');
    assert.equal(malformed.status, 403);
    const controller = new AbortController();
    const response = await fetch(harness.url, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${writeOnly}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'l',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: envelope },
      }),
    });
    assert.equal(response.status, 200);
    controller.abort();
  });
});

describe('open subscriptions/listen streams', () => {
  // A listen whose honored filter is empty ends at once: these stay open.
  const watched = ['mark://alpha/a.md'];
  let harness: Harness;
  before(async () => {
    harness = await startListener({
      sessions: { maxSessions: 5, maxSessionsPerSubject: 3 },
      server: {
        serverInfo: { name: 't', version: '0' },
        definitions,
        gateway: listingGateway,
        subscriptions: new ResourceSubscriptions(),
      },
    });
  });
  after(() => harness.close());

  it('are bounded per subject, so one subject cannot take every place; a closed one frees its place', async () => {
    const alice = await harness.token('alice@example.com');
    const bob = await harness.token('bob@example.com');
    const held = new AbortController();
    const closing = new AbortController();
    const opened = [
      await rawListen(harness.url, alice, watched, held.signal, 1),
      await rawListen(harness.url, alice, watched, held.signal, 2),
      await rawListen(harness.url, alice, watched, closing.signal, 3),
    ];
    for (const { first } of opened) assert.equal(first.method, 'notifications/subscriptions/acknowledged');
    const fourth = await rawListen(harness.url, alice, watched, held.signal, 4);
    assert.equal(fourth.first.error.code, -32600);
    assert.match(fourth.first.error.message, /at most 3 open subscriptions\/listen streams per subject/);
    const bobs = await rawListen(harness.url, bob, watched, held.signal, 5);
    assert.equal(bobs.first.method, 'notifications/subscriptions/acknowledged');
    closing.abort();
    let again = await rawListen(harness.url, alice, watched, held.signal, 6);
    for (let i = 0; i < 50 && again.first.error !== undefined; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await rawListen(harness.url, alice, watched, held.signal, 7 + i);
    }
    assert.equal(again.first.method, 'notifications/subscriptions/acknowledged');
    held.abort();
  });

  it('are bounded for the process by the session bound', async () => {
    const held = new AbortController();
    const answers = [];
    for (const [i, email] of ['a', 'b', 'c', 'd', 'e', 'f'].entries())
      answers.push(await rawListen(harness.url, await harness.token(`${email}@example.com`), watched, held.signal, i));
    assert.deepEqual(
      answers.slice(0, 5).map(({ first }) => first.method),
      Array(5).fill('notifications/subscriptions/acknowledged'),
    );
    assert.equal(answers[5]?.first.error.code, -32603);
    held.abort();
  });
});

describe('guardListens', () => {
  const auth = authInfoFor({
    subject: 'sub-1',
    email: 'lin@example.com',
    emailVerified: true,
    groups: [],
    issuedBy: 'broker',
  });
  const listenBody = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true } },
  });
  const response = () => new ServerResponse(new IncomingMessage(new Socket()));

  it('frees a stream destroyed before its close event once, not twice', async () => {
    const served = new Set<ServerResponse>();
    const guard = guardListens(
      async (_req, res) => {
        served.add(res);
      },
      { perSubject: 2 },
    );
    const listen = (res: ServerResponse, id: number) => guard(res.req, res, listenBody(id), auth);
    const first = response();
    await listen(first, 1);
    // Gone before the guard saw it (the client left while its body was read): destroyed, its close still to come.
    const gone = response();
    gone.destroy();
    await listen(gone, 2);
    gone.emit('close');
    const second = response();
    const third = response();
    await listen(second, 3);
    await listen(third, 4);
    assert.ok(served.has(first) && served.has(second), 'the first two open streams are served');
    assert.equal(served.has(third), false, 'a third open stream is past the bound of 2');
  });
});
