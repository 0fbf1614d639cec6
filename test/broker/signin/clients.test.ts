import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { authenticateClient, parseClientCredentials } from '../../../src/broker/auth/clients/client-authentication.ts';
import { builtinCliClient, redirectUriAllowed, type OAuthClient } from '../../../src/broker/auth/clients/client.ts';
import { checkRedirectUri, parseRegistrationRequest } from '../../../src/broker/auth/clients/registration-request.ts';
import { RegisteredClients } from '../../../src/broker/auth/clients/registered-clients.ts';
import { webClientsFromConfig } from '../../../src/broker/auth/clients/web-clients.ts';
import type { OAuthError } from '../../../src/broker/auth/oauth-error.ts';
import { MemoryStateStore } from '../../../src/broker/state/index.ts';

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
  it('persists a registration and issues a secret only to confidential clients, stored hashed', async () => {
    const store = new MemoryStateStore();
    const clients = new RegisteredClients(store);
    const confidential = await clients.register(parseRegistrationRequest({ redirect_uris: ['https://a.example/cb'] }));
    assert.ok(confidential.secret);
    assert.equal(confidential.client.secretHash, createHash('sha256').update(confidential.secret).digest('hex'));
    assert.ok(!(await store.read('registered_clients.json'))!.toString().includes(confidential.secret));
    const publicClient = await clients.register(
      parseRegistrationRequest({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none' }),
    );
    assert.equal(publicClient.secret, undefined);
    assert.equal((await new RegisteredClients(store).find(publicClient.client.clientId))?.name, 'unnamed client');
    assert.equal(await clients.find('__proto__'), null);
  });

  it('is bounded: when full, unused registrations older than a day make room, else registration is refused', async () => {
    let now = 0;
    const clients = new RegisteredClients(new MemoryStateStore(), { maxClients: 2, now: () => now });
    const request = parseRegistrationRequest({
      redirect_uris: ['https://a.example/cb'],
      token_endpoint_auth_method: 'none',
    });
    const used = await clients.register(request);
    await clients.register(request);
    await clients.touch(used.client.clientId);
    await assert.rejects(clients.register(request), (error: OAuthError) => error.error === 'temporarily_unavailable');
    now = 2 * 24 * 3_600_000;
    await clients.register(request);
    assert.equal(await clients.count(), 2);
    assert.ok(await clients.find(used.client.clientId), 'a client that obtained tokens is kept');
  });
});

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
