/**
 * Two MCP listeners (two broker replicas) sharing stateful sessions through a
 * real redis-server and one signing key, and a session opened by hand on one
 * of them, as a client would. Used by test/broker/http/shared-sessions.test.ts
 * and the attacks on shared sessions in test/security/.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { createBearerVerifier } from '../../../src/broker/auth/verify-bearer.ts';
import type { ResourceSubscriptions } from '../../../src/broker/changes/resource-subscriptions.ts';
import { defaultSessionIdleTtlMs } from '../../../src/broker/http/session-store.ts';
import { SharedSessions } from '../../../src/broker/http/shared-sessions.ts';
import { startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import { definitions, issuer, listingGateway, startListener, type Harness } from './fixtures.ts';
import { initializeBody, jsonRpcHeaders } from './raw-http.ts';

export type SharedReplicasOptions = {
  maxSessionsPerSubject?: number;
  /** Each replica offers resource subscriptions, in its own registry. */
  subscriptions?: [ResourceSubscriptions, ResourceSubscriptions];
  /** The first replica's session store runs on this clock (Redis keeps real time). */
  clockOfA?: () => number;
};

/**
 * A real redis-server for the enclosing `describe`: started before its tests and stopped after
 * them, once every connection `connect` made (kept in `connections`, in order) is closed.
 */
export function sharedRedisServer(): { connect: () => Redis; connections: Redis[] } {
  let redis: RedisServer | undefined;
  const connections: Redis[] = [];
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    for (const connection of connections) connection.disconnect();
    await redis?.close();
  });
  return {
    connections,
    connect: () => {
      assert.ok(redis, 'sharedRedisServer: connect is for the tests, after the server started');
      return redisConnector(redis, connections)();
    },
  };
}

/** Connections to `redis` that fail at once while it is down; each is added to `connections`, for the test to close. */
export function redisConnector(redis: RedisServer, connections: Redis[]): () => Redis {
  return () => {
    const client = new Redis({
      host: '127.0.0.1',
      port: redis.port,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    client.on('error', () => undefined);
    connections.push(client);
    return client;
  };
}

/**
 * Closes the connection for good (no reconnect by itself): its commands fail at once, as while Redis
 * is down. (Stopping redis-server would lose the records with it: the test server keeps nothing on disk.)
 */
export async function cut(connection: Redis): Promise<void> {
  const ended = once(connection, 'end');
  connection.disconnect();
  await ended;
}

/** Connects again a connection `cut` ended. */
export async function reconnect(connection: Redis): Promise<void> {
  if (connection.status !== 'end') await once(connection, 'end');
  await connection.connect();
}

/**
 * The session directory the replicas share under `keyPrefix`, read and written by the test itself on `client`
 * (once it is ready), with bounds wide enough that the test's own sessions never evict one another.
 */
export async function sharedSessionDirectory(client: Redis, keyPrefix: string): Promise<SharedSessions> {
  await once(client, 'ready');
  return new SharedSessions({
    client,
    keyPrefix,
    maxSessions: 100,
    maxSessionsPerSubject: 100,
    idleTtlMs: defaultSessionIdleTtlMs,
  });
}

/** The URIs of session `id`'s subscriptions as Redis holds them (its places), sorted; undefined when the session is gone. */
export async function storedSubscriptions(directory: SharedSessions, id: string): Promise<string[] | undefined> {
  const stored = await directory.loadMemory(id);
  return stored ? [...stored.places.keys()].sort() : undefined;
}

/** Two listeners sharing Redis under `keyPrefix` (a fresh one per pair keeps pairs apart) and one signing key. */
export async function startSharedReplicas(
  connection: () => Redis,
  keyPrefix: string,
  options: SharedReplicasOptions = {},
): Promise<[Harness, Harness]> {
  const sharedSessions = { client: connection(), keyPrefix };
  await new Promise((resolve) => sharedSessions.client.once('ready', resolve));
  const sessions = options.maxSessionsPerSubject ? { maxSessionsPerSubject: options.maxSessionsPerSubject } : {};
  const server = (subscriptions: ResourceSubscriptions | undefined) =>
    subscriptions === undefined
      ? {}
      : {
          server: {
            serverInfo: { name: 'replica', version: '0' },
            definitions,
            gateway: listingGateway,
            subscriptions,
          },
        };
  const first = await startListener({
    sharedSessions,
    sessions: { ...sessions, ...(options.clockOfA ? { now: options.clockOfA } : {}) },
    ...server(options.subscriptions?.[0]),
  });
  const verifyBearer = createBearerVerifier({
    broker: { publicKey: first.key.publicKey, kid: first.key.kid, issuer, audiences: [first.resource] },
  });
  const second = await startListener({
    sharedSessions: { ...sharedSessions, client: connection() },
    verifyBearer,
    sessions,
    ...server(options.subscriptions?.[1]),
  });
  return [first, second];
}

export type OpenedSession = {
  id: string;
  /** POSTs one JSON-RPC message of the session to `to`. */
  post: (to: Harness, message: object) => Promise<{ status: number; text: string }>;
  /** Ends the session with DELETE through `to`; its status. */
  end: (to: Harness) => Promise<number>;
};

/** A session opened on `target` by hand, as a client would: initialize, then initialized. */
export async function openSessionOn(target: Harness, token: string): Promise<OpenedSession> {
  const opened = await fetch(target.url, { method: 'POST', headers: jsonRpcHeaders(token), body: initializeBody });
  const id = opened.headers.get('mcp-session-id');
  await opened.text();
  assert.ok(id, 'initialize opened a session');
  const ofSession = { authorization: `Bearer ${token}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  const headers = { ...jsonRpcHeaders(token), ...ofSession };
  const post = async (to: Harness, message: object) => {
    const response = await fetch(to.url, { method: 'POST', headers, body: JSON.stringify(message) });
    return { status: response.status, text: await response.text() };
  };
  await post(target, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const end = async (to: Harness) => {
    const response = await fetch(to.url, { method: 'DELETE', headers: ofSession });
    await response.text();
    return response.status;
  };
  return { id, post, end };
}

export const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
export const subscribe = (uri: string, id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'resources/subscribe',
  params: { uri },
});

export type EventStream = {
  /** Everything received, once it matches `pattern` or once the stream has closed. */
  until: (pattern: RegExp) => Promise<string>;
  closed: Promise<void>;
  abort: () => void;
};

/** The client's GET event stream on `target` (Streamable HTTP), open once its headers arrive. */
export function openEventStream(target: Harness, token: string, sessionId: string): Promise<EventStream> {
  const url = new URL(target.url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
      },
      (response: IncomingMessage) => {
        if (response.statusCode !== 200) return reject(new Error(`GET stream answered ${response.statusCode}`));
        let text = '';
        let done = false;
        const waiting = new Set<() => void>();
        const wake = () => {
          for (const check of waiting) check();
        };
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          wake();
        });
        const closed = new Promise<void>((end) =>
          response.on('close', () => {
            done = true;
            wake();
            end();
          }),
        );
        resolve({
          until: (pattern) =>
            new Promise((found) => {
              const check = () => {
                if (!pattern.test(text) && !done) return;
                waiting.delete(check);
                found(text);
              };
              waiting.add(check);
              check();
            }),
          closed,
          abort: () => outgoing.destroy(),
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}
