/**
 * Threat: anyone on the network fills the broker's client registrations.
 * Registration (RFC 7591) is anonymous, so the store behind it must be bounded
 * per address and in size, must forget what nobody used, and must not let one
 * registration cost work proportional to all the others.
 *
 * Each attack below succeeded against the single `registered_clients.json`
 * store (checked by running this file against it): 40 registrations from one
 * address filled a cap of 30 and locked a second address out; 20 × 2,000-char
 * redirect URIs were stored; an unused registration was kept for a day; every
 * registration rewrote, and every unknown `client_id` re-read, the whole file.
 *
 * Concurrent registrations went past the total bound (found in review, then
 * checked by running the test below against it): the bound was checked before
 * the write to the short-lived store and counted after it, so every
 * registration in flight during that round trip passed; with a bound of 5,
 * all 40 of 40 concurrent registrations over Redis were accepted. The test
 * after it guards the mend: a registration whose write failed gives its place
 * back rather than holding it for the window.
 *
 * The real broker and the real development IdP over HTTP; the store-level
 * attacks drive `RegisteredClients` over a store that counts its bytes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { OAuthError } from '../../src/broker/auth/oauth-error.ts';
import { RegisteredClients } from '../../src/broker/auth/clients/registered-clients.ts';
import { parseRegistrationRequest } from '../../src/broker/auth/clients/registration-request.ts';
import {
  MemoryEphemeralStore,
  MemoryStateStore,
  RedisEphemeralStore,
  StateUnavailableError,
  type DocumentMutation,
  type StateDocumentStore,
} from '../../src/broker/state/index.ts';
import { startSignInStack, type SignInStack } from '../e2e/signin-fixture.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';

describe('security: registrations are bounded per address and in size (real broker, real IdP)', () => {
  let signIn: SignInStack;
  before(async () => {
    signIn = await startSignInStack({
      brokerConfig: (document) => {
        document.oauth.registration = { maxClients: 30 };
        // The defaults, and several addresses played through X-Forwarded-For.
        document.rateLimit.registration = { perMinute: 1, burst: 10 };
        document.rateLimit.trustForwardedFor = true;
      },
    });
  });
  after(async () => signIn?.close());

  async function register(metadata: Record<string, unknown>, from: string) {
    const answer = await fetch(`${signIn.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify(metadata),
    });
    return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
  }
  const small = { redirect_uris: ['http://127.0.0.1:7777/cb'], token_endpoint_auth_method: 'none' };

  it("one address's flood is refused at its own budget and never locks another address out", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) statuses.push((await register(small, '203.0.113.7')).status);
    assert.ok(statuses.includes(429), `the flooding address is refused at some point: ${statuses.join(',')}`);
    assert.ok(statuses.filter((s) => s === 201).length <= 10, 'at most 10 unused registrations per address');
    const legitimate = await register(small, '198.51.100.20');
    assert.equal(legitimate.status, 201, JSON.stringify(legitimate.json));
  });

  it('refuses 20 redirect URIs of 2,000 characters, and any registration above the size bound', async () => {
    const long = (i: number) => `https://app.example/${String(i).padStart(1980, 'x')}`;
    const huge = await register(
      { ...small, redirect_uris: Array.from({ length: 20 }, (_, i) => long(i)) },
      '198.51.100.30',
    );
    assert.equal(huge.status, 400);
    assert.equal(huge.json.error, 'invalid_redirect_uri');
    const eleven = await register(
      { ...small, redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) },
      '198.51.100.31',
    );
    assert.equal(eleven.status, 400, 'more than 10 redirect URIs');
    const fat = await register(
      { ...small, redirect_uris: Array.from({ length: 10 }, (_, i) => `https://app.example/${i}/`.padEnd(900, 'x')) },
      '198.51.100.32',
    );
    assert.equal(fat.status, 400, 'ten 900-character URIs exceed the 4 KiB record');
    assert.equal(fat.json.error, 'invalid_client_metadata');
  });

  it('writes nothing durable for a registration nobody has used', async () => {
    const before = await readdir(join(signIn.dir, 'state')).catch(() => [] as string[]);
    assert.equal((await register(small, '198.51.100.40')).status, 201);
    const after = await readdir(join(signIn.dir, 'state')).catch(() => [] as string[]);
    assert.deepEqual(
      after.filter((name) => !before.includes(name)),
      [],
    );
  });
});

/** A durable store that counts the bytes it reads and writes. */
class CountingStore implements StateDocumentStore {
  readonly inner = new MemoryStateStore();
  bytesRead = 0;
  bytesWritten = 0;
  documentsWritten = new Set<string>();
  async read(document: string): Promise<Buffer | null> {
    const bytes = await this.inner.read(document);
    this.bytesRead += bytes?.length ?? 0;
    return bytes;
  }
  async update(document: string, mutate: DocumentMutation): Promise<Buffer | null> {
    return this.inner.update(document, (current) => {
      this.bytesRead += current?.length ?? 0;
      const next = mutate(current);
      if (next !== null) {
        this.bytesWritten += next.length;
        this.documentsWritten.add(document);
      }
      return next;
    });
  }
  async readAll(prefix: string): Promise<Map<string, Buffer>> {
    const found = await this.inner.readAll(prefix);
    for (const bytes of found.values()) this.bytesRead += bytes.length;
    return found;
  }
  async remove(documents: readonly string[]): Promise<void> {
    await this.inner.remove(documents);
  }
}

describe('security: one registration costs one record', () => {
  const request = parseRegistrationRequest({
    redirect_uris: ['https://a.example/cb'],
    token_endpoint_auth_method: 'none',
  });

  it('registering touches no durable state; an unknown client_id reads no growing document', async () => {
    const durable = new CountingStore();
    const clients = new RegisteredClients(durable, new MemoryEphemeralStore(), { maxClients: 10_000 });
    for (let i = 0; i < 200; i += 1) await clients.register(request);
    assert.equal(durable.bytesWritten, 0, 'nothing durable is written for unused registrations');
    const readBefore = durable.bytesRead;
    for (let i = 0; i < 50; i += 1) assert.equal(await clients.find(randomBytes(16).toString('hex')), null);
    assert.equal(durable.bytesRead, readBefore, 'unknown client ids parse nothing');
  });

  it("a client's first use writes one small record of its own, found by a fresh replica", async () => {
    const durable = new CountingStore();
    const ephemeral = new MemoryEphemeralStore();
    const clients = new RegisteredClients(durable, ephemeral);
    const used = await clients.register(request);
    await clients.register(request);
    await clients.touch(used.client.clientId);
    assert.equal(durable.documentsWritten.size, 1);
    assert.ok(durable.bytesWritten < 1024, `${durable.bytesWritten} bytes`);
    const fresh = new RegisteredClients(durable, new MemoryEphemeralStore());
    assert.equal((await fresh.find(used.client.clientId))?.clientId, used.client.clientId);
  });

  it('an unused registration expires in minutes; a used one stays', async () => {
    let now = 0;
    const ephemeral = new MemoryEphemeralStore({ now: () => now });
    const clients = new RegisteredClients(new MemoryStateStore(), ephemeral, { now: () => now });
    const unused = await clients.register(request);
    const used = await clients.register(request);
    await clients.touch(used.client.clientId);
    now = 16 * 60_000;
    const later = new RegisteredClients(new MemoryStateStore(), ephemeral, { now: () => now });
    assert.equal(await clients.find(unused.client.clientId), null);
    assert.equal(await later.find(unused.client.clientId), null);
    assert.ok(await clients.find(used.client.clientId));
  });

  it('refuses a flood of addresses at the total bound, for minutes, not a day', async () => {
    let now = 0;
    const clients = new RegisteredClients(new MemoryStateStore(), new MemoryEphemeralStore({ now: () => now }), {
      maxClients: 20,
      now: () => now,
    });
    for (let i = 0; i < 20; i += 1) await clients.register(request);
    await assert.rejects(clients.register(request), (error: OAuthError) => error.error === 'temporarily_unavailable');
    now = 16 * 60_000;
    await clients.register(request);
  });
});

describe('security: concurrent registrations stay within the total bound (real Redis)', () => {
  const request = parseRegistrationRequest({
    redirect_uris: ['http://127.0.0.1/cb'],
    token_endpoint_auth_method: 'none',
  });
  let server: RedisServer;
  let client: Redis;
  before(async () => {
    server = await startRedisServer();
    // As the broker connects (src/broker/state/redis/redis-client.ts): nothing queues while Redis is down.
    client = new Redis({ host: '127.0.0.1', port: server.port, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined); // the reconnects while Redis is stopped on purpose
    await new Promise((resolve) => client.once('ready', resolve));
  });
  after(async () => {
    client?.disconnect();
    await server?.close();
  });
  const store = (prefix: string) => new RedisEphemeralStore({ client, keyPrefix: prefix });
  const isFull = (error: OAuthError) => error.error === 'temporarily_unavailable';

  it('accepts exactly the bound of 40 registrations sent at once, and refuses the rest', async () => {
    const clients = new RegisteredClients(new MemoryStateStore(), store('race:'), { maxClients: 5 });
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => clients.register(request)));
    const accepted = results.filter((result) => result.status === 'fulfilled').length;
    assert.equal(accepted, 5, `${accepted} of 40 concurrent registrations accepted under a bound of 5`);
    for (const result of results)
      if (result.status === 'rejected') assert.ok(isFull(result.reason), String(result.reason));
    await assert.rejects(clients.register(request), isFull);
  });

  it('gives the place of a registration whose write failed back', async () => {
    const clients = new RegisteredClients(new MemoryStateStore(), store('down:'), { maxClients: 2 });
    await server.stop();
    for (let i = 0; i < 3; i += 1) await assert.rejects(clients.register(request), StateUnavailableError);
    await server.start();
    await new Promise((resolve) => (client.status === 'ready' ? resolve(undefined) : client.once('ready', resolve)));
    await clients.register(request);
    await clients.register(request);
    await assert.rejects(clients.register(request), isFull);
  });
});
