import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addressAllowed, guardedGet } from '../../../src/broker/auth/clients/guarded-fetch.ts';
import { ClientMetadataDocuments } from '../../../src/broker/auth/clients/metadata-document.ts';
import type { OAuthError } from '../../../src/broker/auth/oauth-error.ts';

const id = 'https://agent.example/oauth/client.json';
const served =
  (doc: unknown, cacheControl = '') =>
  async () => ({ status: 200, contentType: 'application/json', cacheControl, body: JSON.stringify(doc) });
const failure = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: OAuthError) => `${error.error}: ${error.description}`,
  );

describe('Client ID Metadata Documents', () => {
  it('resolves a public client from a document whose client_id is its URL', async () => {
    const documents = new ClientMetadataDocuments({
      fetchDocument: served({ client_id: id, client_name: 'Agent', redirect_uris: ['http://127.0.0.1/cb'] }),
    });
    const client = await documents.resolve(id);
    assert.equal(client.name, 'Agent');
    assert.equal(client.kind, 'metadata-document');
    assert.equal(client.secretHash, undefined);
  });

  it('refuses a mismatched client_id, a missing name or redirect URIs, a secret, and a non-none auth method', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ client_id: `${id}x`, client_name: 'A', redirect_uris: ['https://a.example/cb'] }, /different client_id/],
      [{ client_id: id, redirect_uris: ['https://a.example/cb'] }, /client_name/],
      [{ client_id: id, client_name: 'A' }, /redirect_uris/],
      [{ client_id: id, client_name: 'A', redirect_uris: ['https://a.example/cb'], client_secret: 'x' }, /secret/],
      [
        {
          client_id: id,
          client_name: 'A',
          redirect_uris: ['https://a.example/cb'],
          token_endpoint_auth_method: 'private_key_jwt',
        },
        /only "none"/,
      ],
      [{ client_id: id, client_name: 'A', redirect_uris: ['http://evil.example/cb'] }, /unacceptable redirect/],
    ];
    for (const [doc, expected] of cases)
      assert.match(await failure(new ClientMetadataDocuments({ fetchDocument: served(doc) }).resolve(id)), expected);
  });

  it('refuses client_id URLs without https, without a path, or with a fragment or dot segments', async () => {
    const documents = new ClientMetadataDocuments({ fetchDocument: served({}) });
    for (const bad of [
      'http://agent.example/c.json',
      'https://agent.example/',
      'https://agent.example/c.json#x',
      'https://agent.example/a/../c.json',
    ]) {
      assert.match(await failure(documents.resolve(bad)), /^invalid_client/, bad);
    }
  });

  it('caches per Cache-Control and does not cache no-store', async () => {
    let fetches = 0;
    const doc = { client_id: id, client_name: 'A', redirect_uris: ['https://a.example/cb'] };
    const counting = (cacheControl: string) => async () => {
      fetches += 1;
      return served(doc, cacheControl)();
    };
    const cached = new ClientMetadataDocuments({ fetchDocument: counting('max-age=600') });
    await cached.resolve(id);
    await cached.resolve(id);
    assert.equal(fetches, 1);
    const uncached = new ClientMetadataDocuments({ fetchDocument: counting('no-store') });
    await uncached.resolve(id);
    await uncached.resolve(id);
    assert.equal(fetches, 3);
  });
});

describe('guarded fetch (SSRF)', () => {
  it('refuses private, loopback, link-local and mapped addresses; loopback only when allowed', () => {
    for (const address of [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      'fd00::1',
      'fe80::1',
      '::',
    ])
      assert.equal(addressAllowed(address, true), false, address);
    assert.equal(addressAllowed('127.0.0.1', false), false);
    assert.equal(addressAllowed('::ffff:127.0.0.1', false), false);
    assert.equal(addressAllowed('::1', true), true);
    assert.equal(addressAllowed('93.184.216.34', false), true);
  });

  it('does not dial a literal loopback address unless allowed', async () => {
    await assert.rejects(
      guardedGet(new URL('http://127.0.0.1:9/x'), { timeoutMs: 1000, maxBytes: 100, allowLoopback: false }),
      /refused address/,
    );
  });
});
