/**
 * The broker's write-token record in a broker-namespace Secret, driven by the
 * real @kubernetes/client-node against a fake Kubernetes API server: the
 * WriteTokenStore contract (create-only and versioned replace, 409 as
 * conflict), two replicas racing to provision, and mutateSecret's optimistic
 * concurrency with 409 retries (at most 5 attempts) and no-op skip
 * (Go broker `world_write_tokens.go`).
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openAllowList } from '../../src/broker/worlds/allowlist.ts';
import {
  mintWriteTokenRecord,
  WriteTokenConflictError,
  WriteTokenProvisioner,
  WriteTokenStoreError,
} from '../../src/broker/worlds/write-tokens/index.ts';
import {
  KubernetesBackendError,
  mutateSecret,
  SecretTokensSink,
  SecretWriteTokenStore,
  writeTokenSecretKey,
  writeTokenSecretName,
} from '../../src/broker/kubernetes/index.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api/server.ts';
import { apis, assertOnlyDeclaredCalls } from './helpers.ts';

const namespace = 'demarkus';
let server: FakeApiServer;

before(async () => {
  server = await startFakeApiServer(['broker', 'other-replica']);
});
after(async () => {
  assertOnlyDeclaredCalls(server.requests, {
    brokerNamespace: namespace,
    worlds: {
      'team-a': { namespace: 'team-a', tokensSecret: 'team-a-tokens' },
      'team-b': { namespace: 'team-b', tokensSecret: 'team-b-tokens' },
      race: { namespace: 'race', tokensSecret: 'race-tokens' },
      busy: { namespace: 'busy', tokensSecret: 'busy-tokens' },
      narrowed: { namespace: 'narrowed', tokensSecret: 'narrowed-tokens' },
      hidden: { namespace: 'hidden', tokensSecret: 'hidden-tokens' },
    },
  });
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

const storedRecord = (world: string) => {
  const secret = server.store.get('secrets', namespace, writeTokenSecretName(world));
  const data = (secret?.data ?? {}) as Record<string, string>;
  return data[writeTokenSecretKey] === undefined
    ? null
    : Buffer.from(data[writeTokenSecretKey], 'base64').toString('utf8');
};

const calls = () =>
  server.requests
    .filter((request) => request.identity === 'broker')
    .map((request) => `${request.verb} ${request.status}`);

describe('write-token record Secret store (fake API server, real client-node)', () => {
  const store = () => new SecretWriteTokenStore({ core: apis(server).core, namespace });

  it('answers null for a world without a record Secret', async () => {
    assert.equal(await store().get('team-a'), null);
    assert.deepEqual(calls(), ['get 404']);
  });

  it('creates demarkus-broker-write-token-<world> with the Go record JSON, create-only', async () => {
    const record = mintWriteTokenRecord('team-a', ['/**']);
    const stored = await store().put('team-a', record, null);
    assert.equal(
      stored.version,
      server.store.get('secrets', namespace, 'demarkus-broker-write-token-team-a')?.metadata.resourceVersion,
    );
    assert.equal(
      storedRecord('team-a'),
      `{"label":"broker-write-team-a","rawToken":"${record.rawToken}","entry":{"Hash":"${record.hash}","Paths":["/**"],"Operations":["publish"],"Expires":""}}`,
    );
    assert.deepEqual(calls(), ['create 201']);
    const secret = server.store.get('secrets', namespace, 'demarkus-broker-write-token-team-a');
    assert.equal(secret?.type, 'Opaque');
    assert.equal(secret?.metadata.labels?.['app.kubernetes.io/managed-by'], 'demarkus-broker');
    const read = await store().get('team-a');
    assert.deepEqual(read?.record, record);
  });

  it('refuses a second create (409 AlreadyExists) and a stale replace (409 Conflict) as WriteTokenConflictError', async () => {
    const first = await store().put('team-b', mintWriteTokenRecord('team-b', ['/**']), null);
    await assert.rejects(store().put('team-b', mintWriteTokenRecord('team-b', ['/**']), null), WriteTokenConflictError);
    const replaced = await store().put('team-b', mintWriteTokenRecord('team-b', ['/**']), first.version);
    assert.notEqual(replaced.version, first.version);
    await assert.rejects(
      store().put('team-b', mintWriteTokenRecord('team-b', ['/**']), first.version),
      WriteTokenConflictError,
    );
  });

  it('gives two replicas racing to provision a world the same token (the first commit wins)', async () => {
    const world = {
      name: 'race',
      address: 'race.race.svc.cluster.local:6309',
      source: 'config' as const,
      allow: openAllowList,
      writeTokenPaths: ['/**'],
      tokens: { namespace: 'race', secret: 'race-tokens' },
    };
    server.store.create('secrets', {
      metadata: { name: 'race-tokens', namespace: 'race' },
      data: { 'tokens.toml': '' },
    });
    const replica = (identity: string) =>
      new WriteTokenProvisioner(
        new SecretWriteTokenStore({ core: apis(server, identity).core, namespace }),
        new SecretTokensSink({ core: apis(server, identity).core }),
      );
    const [a, b] = await Promise.all([replica('broker').token(world), replica('other-replica').token(world)]);
    assert.equal(a, b);
    const creates = server.requests
      .filter((request) => request.verb === 'create')
      .map((request) => request.status)
      .sort();
    assert.deepEqual(creates, [201, 409]);
    const toml = Buffer.from(
      ((server.store.get('secrets', 'race', 'race-tokens')?.data ?? {}) as Record<string, string>)['tokens.toml']!,
      'base64',
    ).toString();
    assert.equal(toml.split('[tokens.broker-write-race]').length - 1, 1, "one entry in the world's tokens.toml");
  });

  it('gives two replicas re-minting a record whose paths were narrowed the same new token', async () => {
    const world = (paths: string[]) => ({
      name: 'narrowed',
      address: 'narrowed.narrowed.svc.cluster.local:6309',
      source: 'config' as const,
      allow: openAllowList,
      writeTokenPaths: paths,
      tokens: { namespace: 'narrowed', secret: 'narrowed-tokens' },
    });
    server.store.create('secrets', {
      metadata: { name: 'narrowed-tokens', namespace: 'narrowed' },
      data: { 'tokens.toml': '' },
    });
    const replica = (identity: string) =>
      new WriteTokenProvisioner(
        new SecretWriteTokenStore({ core: apis(server, identity).core, namespace }),
        new SecretTokensSink({ core: apis(server, identity).core }),
      );
    const wide = await replica('broker').token(world(['/**']));
    server.requests.length = 0;
    const [a, b] = await Promise.all([
      replica('broker').token(world(['/public/**'])),
      replica('other-replica').token(world(['/public/**'])),
    ]);
    assert.equal(a, b);
    assert.notEqual(a, wide);
    const replaces = server.requests
      .filter((request) => request.verb === 'update' && request.name === writeTokenSecretName('narrowed'))
      .map((request) => request.status);
    assert.ok(replaces.filter((status) => status === 200).length === 1, `one replacement wins: ${replaces}`);
    assert.deepEqual(JSON.parse(storedRecord('narrowed')!).entry.Paths, ['/public/**']);
  });

  it('rejects a stored record whose Hash does not match its rawToken, without the token in the message', async () => {
    const bad = JSON.stringify({
      label: 'broker-write-hidden',
      rawToken: 'c'.repeat(64),
      entry: { Hash: `sha256-${'0'.repeat(64)}`, Paths: ['/**'], Operations: ['publish'], Expires: '' },
    });
    server.store.create('secrets', {
      metadata: { name: writeTokenSecretName('hidden'), namespace },
      data: { [writeTokenSecretKey]: Buffer.from(bad).toString('base64') },
    });
    await assert.rejects(store().get('hidden'), (error: unknown) => {
      assert.ok(error instanceof WriteTokenStoreError);
      assert.equal(error.message, 'the write-token record of world "hidden" is malformed');
      assert.doesNotMatch(error.message, /c{64}/);
      return true;
    });
  });

  it('reports a refused call as WriteTokenStoreError with the status, not the response body', async () => {
    server.fail((request) => request.name === 'demarkus-broker-write-token-busy', 403);
    await assert.rejects(store().get('busy'), (error: unknown) => {
      assert.ok(error instanceof WriteTokenStoreError);
      assert.equal(
        error.message,
        `cannot read the write-token record of world "busy": kubernetes: read secret ${namespace}/demarkus-broker-write-token-busy: HTTP 403`,
      );
      assert.equal((error.cause as KubernetesBackendError).status, 403);
      return true;
    });
  });
});

describe('mutateSecret optimistic concurrency (fake API server)', () => {
  const ref = { namespace, name: 'demarkus-broker-refresh-tokens', key: 'refresh_tokens.json' };

  it("re-reads and retries after a 409 Conflict, applying the mutation to the winner's bytes", async () => {
    server.store.create('secrets', {
      metadata: { name: ref.name, namespace },
      data: { [ref.key]: Buffer.from('a').toString('base64') },
    });
    let interfered = false;
    server.onWrite((request) => {
      if (interfered || request.verb !== 'update' || request.name !== ref.name) return;
      interfered = true; // another replica commits first: our resourceVersion is now stale
      const current = server.store.get('secrets', namespace, ref.name)!;
      server.store.update('secrets', { ...current, data: { [ref.key]: Buffer.from('ab').toString('base64') } });
    });
    const outcome = await mutateSecret(
      apis(server).core,
      ref,
      (current) => Buffer.concat([current ?? Buffer.alloc(0), Buffer.from('c')]),
      { createIfMissing: true },
    );
    assert.equal(outcome.result, 'updated');
    assert.equal(outcome.attempts, 2);
    assert.equal(outcome.value?.toString(), 'abc', "both writers' changes survive");
    assert.deepEqual(calls(), ['get 200', 'update 409', 'get 200', 'update 200']);
  });

  it('gives up after 5 attempts with ERR_K8S_CONFLICT when every update loses', async () => {
    const name = 'demarkus-broker-state-registered-clients';
    server.store.create('secrets', { metadata: { name, namespace }, data: {} });
    server.onWrite((request) => {
      if (request.verb !== 'update' || request.name !== name) return;
      const current = server.store.get('secrets', namespace, name)!;
      server.store.update('secrets', current);
    });
    await assert.rejects(
      mutateSecret(apis(server).core, { namespace, name, key: 'registered_clients.json' }, () => Buffer.from('{}'), {
        createIfMissing: true,
      }),
      (error: unknown) => {
        assert.ok(error instanceof KubernetesBackendError);
        assert.equal(error.code, 'ERR_K8S_CONFLICT');
        assert.equal(error.message, `kubernetes: conflict on secret ${namespace}/${name} after 5 retries`);
        return true;
      },
    );
    assert.equal(calls().filter((call) => call === 'update 409').length, 5);
    assert.equal(calls().length, 10);
  });

  it('skips the update when the mutation returns the stored bytes', async () => {
    const name = 'demarkus-broker-state-signing-keys';
    server.store.create('secrets', {
      metadata: { name, namespace },
      data: { 'signing_keys.json': Buffer.from('same').toString('base64') },
    });
    const before = server.store.get('secrets', namespace, name)!.metadata.resourceVersion;
    const outcome = await mutateSecret(
      apis(server).core,
      { namespace, name, key: 'signing_keys.json' },
      () => Buffer.from('same'),
      { createIfMissing: true },
    );
    assert.equal(outcome.result, 'unchanged');
    assert.deepEqual(calls(), ['get 200']);
    assert.equal(server.store.get('secrets', namespace, name)!.metadata.resourceVersion, before);
  });

  it('creates nothing for an empty result on a missing Secret', async () => {
    const outcome = await mutateSecret(
      apis(server).core,
      { namespace, name: 'demarkus-broker-write-token-busy', key: 'x' },
      () => Buffer.alloc(0),
      { createIfMissing: true },
    );
    assert.equal(outcome.result, 'unchanged');
    assert.deepEqual(calls(), ['get 404']);
  });
});
