/**
 * The world chart's one-time tokens bootstrap against a fake Kubernetes API
 * server (real client-node): creates the tokens Secret (hashes only) and the
 * raw-token Secret once, recovers a half-finished run, and never rewrites.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokensFile } from '../../src/world/auth/index.ts';
import { hashToken } from '../../src/protocol/token.ts';
import { bootstrapWorldTokens, worldBootstrapApiCalls } from '../../src/broker/kubernetes/index.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api/server.ts';
import { apis } from './helpers.ts';

let server: FakeApiServer;
const namespace = 'team-a';
const run = (overrides: Partial<Parameters<typeof bootstrapWorldTokens>[0]> = {}) =>
  bootstrapWorldTokens({
    core: apis(server).core,
    namespace,
    world: 'team-a',
    tokensSecret: 'team-a-tokens',
    valuesSecret: 'team-a-token-values',
    label: 'admin',
    paths: ['/**'],
    operations: ['publish'],
    ...overrides,
  });
const value = (name: string, key: string) => {
  const data = (server.store.get('secrets', namespace, name)?.data ?? {}) as Record<string, string>;
  return data[key] === undefined ? null : Buffer.from(data[key], 'base64').toString();
};
const calls = () => server.requests.map((request) => `${request.verb} ${request.name ?? '-'} ${request.status}`);

before(async () => {
  server = await startFakeApiServer();
});
beforeEach(() => {
  for (const object of server.store.list('secrets', namespace))
    server.store.delete('secrets', namespace, object.metadata.name);
  server.requests.length = 0;
});
after(async () => {
  for (const request of server.requests) {
    assert.ok(
      worldBootstrapApiCalls.some(
        (call) => call.resource === request.resource && call.verbs.includes(request.verb as never),
      ),
      `undeclared bootstrap call ${request.verb}`,
    );
  }
  await server.close();
});

describe('world tokens bootstrap (fake API server, real client-node)', () => {
  it('creates the raw-token Secret, then a tokens.toml holding only its hash', async () => {
    assert.equal(await run(), 'created');
    const token = value('team-a-token-values', 'token')!;
    assert.match(token, /^[0-9a-f]{64}$/);
    const toml = value('team-a-tokens', 'tokens.toml')!;
    assert.ok(!toml.includes(token), 'no raw token in tokens.toml');
    assert.deepEqual(
      parseTokensFile(toml, 'bootstrap').map((entry) => [entry.label, entry.hash, entry.operations]),
      [['admin', hashToken(token), ['publish']]],
    );
    assert.deepEqual(calls(), ['get team-a-tokens 404', 'get team-a-token-values 404', 'create - 201', 'create - 201']);
  });

  it('does nothing when the tokens Secret exists (the running system owns it)', async () => {
    await run();
    server.requests.length = 0;
    assert.equal(await run(), 'already-present');
    assert.deepEqual(calls(), ['get team-a-tokens 200']);
  });

  it('finishes a run that died after storing the raw token, with that same token', async () => {
    server.store.create('secrets', {
      metadata: { name: 'team-a-token-values', namespace },
      data: { token: Buffer.from('d'.repeat(64)).toString('base64') },
    });
    assert.equal(await run(), 'created');
    assert.equal(parseTokensFile(value('team-a-tokens', 'tokens.toml')!, 't')[0]?.hash, hashToken('d'.repeat(64)));
  });

  it('grants an operator-chosen token and keeps no raw copy when asked', async () => {
    assert.equal(await run({ valuesSecret: null, rawToken: 'e'.repeat(64), paths: ['/ops/**'] }), 'created');
    assert.equal(value('team-a-token-values', 'token'), null);
    const [entry] = parseTokensFile(value('team-a-tokens', 'tokens.toml')!, 't');
    assert.deepEqual([entry?.hash, entry?.paths], [hashToken('e'.repeat(64)), ['/ops/**']]);
  });

  it('refuses to mint a token it would keep nowhere', async () => {
    await assert.rejects(run({ valuesSecret: null }), /needs the admin token/);
    assert.deepEqual(calls(), ['get team-a-tokens 404']);
  });
});
