import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authenticateClient, parseClientCredentials } from '../../../src/broker/auth/clients/client-authentication.ts';
import { builtinCliClient, redirectUriAllowed, type OAuthClient } from '../../../src/broker/auth/clients/client.ts';
import { checkRedirectUri, parseRegistrationRequest } from '../../../src/broker/auth/clients/registration-request.ts';
import { RegisteredClients } from '../../../src/broker/auth/clients/registered-clients.ts';
import { webClientsFromConfig } from '../../../src/broker/auth/clients/web-clients.ts';
import type { OAuthError } from '../../../src/broker/auth/oauth-error.ts';
import {
  FileStateStore,
  MemoryEphemeralStore,
  MemoryStateStore,
  registeredClientDocument,
  registeredClientPrefix,
  type StateDocumentStore,
} from '../../../src/broker/state/index.ts';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as OAuthError).error;
  }
  return 'no error';
};

describe('client registration metadata (RFC 7591 §2)', () => {
  it('defaults to authorization_code with refresh_token (tokens are short-lived) and client_secret_basic', () => {
    const parsed = parseRegistrationRequest({ redirect_uris: ['https://app.example/cb'] });
    assert.deepEqual(parsed.grantTypes, ['authorization_code', 'refresh_token']);
    assert.equal(parsed.authMethod, 'client_secret_basic');
  });

  it('accepts https, loopback http and reverse-domain private-use redirect URIs', () => {
    for (const uri of [
      'https://app.example/cb',
      'http://127.0.0.1:3000/cb',
      'http://localhost/cb',
      'http://[::1]:8/cb',
      'com.example.app:/oauth',
    ])
      assert.doesNotThrow(() => checkRedirectUri(uri), uri);
  });

  it('refuses plain http off loopback, fragments, userinfo and dangerous schemes', () => {
    for (const uri of [
      'http://app.example/cb',
      'https://app.example/cb#x',
      'https://user:pw@app.example/cb',
      'javascript:alert(1)',
      'data:text/html,x',
      'relative/path',
    ]) {
      assert.equal(
        code(() => checkRedirectUri(uri)),
        'invalid_redirect_uri',
        uri,
      );
    }
  });

  it('refuses unsupported grant types, response types and auth methods, and a non-object body', () => {
    assert.equal(
      code(() => parseRegistrationRequest({ redirect_uris: ['https://a.example/cb'], grant_types: ['implicit'] })),
      'invalid_client_metadata',
    );
    assert.equal(
      code(() => parseRegistrationRequest({ redirect_uris: ['https://a.example/cb'], response_types: ['token'] })),
      'invalid_client_metadata',
    );
    assert.equal(
      code(() =>
        parseRegistrationRequest({
          redirect_uris: ['https://a.example/cb'],
          token_endpoint_auth_method: 'private_key_jwt',
        }),
      ),
      'invalid_client_metadata',
    );
    assert.equal(
      code(() => parseRegistrationRequest([1])),
      'invalid_client_metadata',
    );
    assert.equal(
      code(() => parseRegistrationRequest({})),
      'invalid_redirect_uri',
      'authorization_code needs a redirect URI',
    );
  });

  it('lets a device-flow-only client register without redirect URIs', () => {
    assert.deepEqual(
      parseRegistrationRequest({
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
        token_endpoint_auth_method: 'none',
      }).redirectUris,
      [],
    );
  });
});

describe('registered clients', () => {
  it('issues a secret only to confidential clients, stored hashed, and shares registrations through the short-lived store', async () => {
    const store = new MemoryStateStore();
    const ephemeral = new MemoryEphemeralStore();
    const clients = new RegisteredClients(store, ephemeral);
    const confidential = await clients.register(parseRegistrationRequest({ redirect_uris: ['https://a.example/cb'] }));
    assert.ok(confidential.secret);
    assert.equal(confidential.client.secretHash, createHash('sha256').update(confidential.secret).digest('hex'));
    await clients.touch(confidential.client.clientId);
    const record = await store.read(registeredClientDocument(confidential.client.clientId));
    assert.ok(record !== null && !record.toString().includes(confidential.secret));
    const publicClient = await clients.register(
      parseRegistrationRequest({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none' }),
    );
    assert.equal(publicClient.secret, undefined);
    const otherReplica = new RegisteredClients(store, ephemeral);
    assert.equal((await otherReplica.find(publicClient.client.clientId))?.name, 'unnamed client');
    assert.equal((await otherReplica.find(confidential.client.clientId))?.secretHash, confidential.client.secretHash);
    assert.equal(await clients.find('__proto__'), null);
  });

  it('still finds the used clients of the older one-document layout, and only those', async () => {
    const store = new MemoryStateStore();
    const old = (clientId: string, lastUsedAt?: number) => ({
      clientId,
      redirectUris: ['https://a.example/cb'],
      grantTypes: ['authorization_code'],
      authMethod: 'none',
      issuedAt: 1,
      ...(lastUsedAt === undefined ? {} : { lastUsedAt }),
    });
    await store.update('registered_clients.json', () =>
      Buffer.from(JSON.stringify({ clients: { usedOne: old('usedOne', 5), neverUsed: old('neverUsed') } })),
    );
    const clients = new RegisteredClients(store, new MemoryEphemeralStore());
    assert.equal((await clients.find('usedOne'))?.clientId, 'usedOne');
    assert.equal(await clients.find('neverUsed'), null);
  });
});

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

// The Kubernetes Secret backend is driven by test/security/client-records.test.ts, against the 1 MiB limit.
for (const [backend, open] of [
  ['memory', async () => new MemoryStateStore()],
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'demarkus-clients-'));
      dirs.push(dir);
      return new FileStateStore(dir);
    },
  ],
] as Array<[string, () => Promise<StateDocumentStore>]>) {
  describe(`used clients within their byte bound (${backend})`, () => {
    it('prunes the least recently used clients without a live refresh token first, never the one being written', async () => {
      const store = await open();
      let now = 1_000_000;
      const live = new Set<string>();
      const maxRecordBytes = 2000;
      const clients = new RegisteredClients(store, new MemoryEphemeralStore({ now: () => now }), {
        maxRecordBytes,
        liveClients: async () => live,
        now: () => now,
      });
      const use = async () => {
        const { client } = await clients.register(
          parseRegistrationRequest({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none' }),
        );
        await clients.touch(client.clientId);
        now += 60_000;
        return client.clientId;
      };
      const signedIn = await use();
      live.add(signedIn);
      const idle = await use();
      const used = [signedIn, idle];
      for (let i = 0; i < 12; i += 1) used.push(await use());

      const records = await store.readAll(registeredClientPrefix);
      const bytes = [...records].reduce((sum, [document, value]) => sum + document.length + value.length, 0);
      assert.ok(bytes <= maxRecordBytes, `${bytes} bytes of records within ${maxRecordBytes}`);
      assert.ok(records.size < used.length, 'some records were pruned');
      const fresh = new RegisteredClients(store, new MemoryEphemeralStore());
      assert.ok(await fresh.find(signedIn), 'the oldest client, whose sign-in is live, is kept');
      assert.equal(await fresh.find(idle), null, 'the least recently used idle client went first');
      assert.ok(await fresh.find(used.at(-1)!), 'the newest client is written');
      const kept = used.filter((id) => records.has(registeredClientDocument(id)));
      assert.deepEqual(kept, [signedIn, ...used.slice(used.length - kept.length + 1)], 'the newest idle ones are kept');
    });
  });
}

describe('redirect URI matching', () => {
  const registered: OAuthClient = {
    clientId: 'c',
    kind: 'registered',
    name: 'c',
    redirectUris: ['http://127.0.0.1:1234/cb', 'https://app.example/cb'],
    authMethod: 'none',
    grantTypes: ['authorization_code'],
    firstParty: false,
  };
  const [web] = [
    ...webClientsFromConfig([
      { clientID: 'w', clientSecretHash: 'a'.repeat(64), redirectURIs: ['https://web.example/cb'] },
    ]).values(),
  ];

  it('compares strings exactly, except the port of a loopback redirect (RFC 8252 §7.3)', () => {
    assert.equal(redirectUriAllowed(registered, 'https://app.example/cb'), true);
    assert.equal(redirectUriAllowed(registered, 'http://127.0.0.1:9999/cb'), true);
    assert.equal(redirectUriAllowed(registered, 'http://127.0.0.1:9999/other'), false);
    assert.equal(redirectUriAllowed(registered, 'https://app.example/cb/'), false);
    assert.equal(redirectUriAllowed(registered, 'https://app.example/cb?x=1'), false);
  });

  it('holds web clients to their exact https URIs and lets the built-in CLI use any loopback one', () => {
    assert.equal(redirectUriAllowed(web!, 'https://web.example/cb'), true);
    assert.equal(redirectUriAllowed(web!, 'http://127.0.0.1:5/cb'), false);
    assert.equal(redirectUriAllowed(builtinCliClient, 'http://localhost:4567/anything'), true);
    assert.equal(redirectUriAllowed(builtinCliClient, 'https://evil.example/cb'), false);
  });
});

describe('client authentication (RFC 6749 §2.3.1)', () => {
  const secret = 's3cret with spaces';
  const confidential: OAuthClient = {
    clientId: 'web app',
    kind: 'web',
    name: 'w',
    redirectUris: [],
    authMethod: 'client_secret_basic',
    grantTypes: ['authorization_code', 'refresh_token'],
    secretHash: createHash('sha256').update(secret).digest('hex'),
    firstParty: true,
  };
  const basic = (id: string, s: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id).replace(/%20/g, '+')}:${encodeURIComponent(s).replace(/%20/g, '+')}`).toString('base64')}`;

  it('decodes form-urlencoded Basic halves and accepts the right secret either way', () => {
    const credentials = parseClientCredentials(basic('web app', secret), {});
    assert.deepEqual(credentials, { clientId: 'web app', secret, method: 'basic' });
    assert.equal(authenticateClient(confidential, credentials), confidential);
    assert.equal(
      authenticateClient(
        confidential,
        parseClientCredentials(undefined, { client_id: 'web app', client_secret: secret }),
      ),
      confidential,
    );
  });

  it('refuses two methods at once and a client_id contradicting the header', () => {
    assert.equal(
      code(() => parseClientCredentials(basic('a', 'b'), { client_secret: 'b' })),
      'invalid_request',
    );
    assert.equal(
      code(() => parseClientCredentials(basic('a', 'b'), { client_id: 'other' })),
      'invalid_request',
    );
    assert.equal(
      code(() => parseClientCredentials(undefined, {})),
      'invalid_request',
    );
  });

  it('refuses a wrong or missing secret, an unknown client, and a public client that sends a secret', () => {
    assert.equal(
      code(() => authenticateClient(confidential, { clientId: 'web app', secret: 'nope', method: 'post' })),
      'invalid_client',
    );
    assert.equal(
      code(() => authenticateClient(confidential, { clientId: 'web app', method: 'none' })),
      'invalid_client',
    );
    assert.equal(
      code(() => authenticateClient(null, { clientId: 'x', method: 'none' })),
      'invalid_client',
    );
    assert.equal(
      code(() =>
        authenticateClient(builtinCliClient, { clientId: builtinCliClient.clientId, secret: 'x', method: 'post' }),
      ),
      'invalid_client',
    );
  });
});
