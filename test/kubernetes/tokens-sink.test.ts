/**
 * The broker's entry in a world's tokens Secret (Go broker
 * `syncWorldHash`, `FormatEntry`), driven by the real client-node against a
 * fake Kubernetes API server: the exact bytes appended, no update when the
 * label already holds the hash, replacement of a rotated hash, a concurrent
 * operator edit kept through a 409 retry, and a missing Secret reported
 * without creating one.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokensFile } from '../../src/world/auth/index.ts';
import { hashToken } from '../../src/protocol/token.ts';
import { openAllowList } from '../../src/broker/worlds/allowlist.ts';
import type { WorldDefinition } from '../../src/broker/worlds/world-definition.ts';
import {
  mintWriteTokenRecord,
  TokensSinkError,
  type WriteTokenRecord,
} from '../../src/broker/worlds/write-tokens/index.ts';
import { SecretTokensSink } from '../../src/broker/kubernetes/index.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api/server.ts';
import { apis, assertOnlyDeclaredCalls } from './helpers.ts';

/** What the world chart's bootstrap Job writes (the admin token's hash only). */
const bootstrap = `[tokens.admin]\nhash = "${hashToken('f'.repeat(64))}"\npaths = ["/**"]\noperations = ["publish"]\n`;
const world = (name: string): WorldDefinition => ({
  name,
  address: `${name}.${name}.svc.cluster.local:6309`,
  source: 'config',
  allow: openAllowList,
  writeTokenPaths: ['/**'],
  tokens: { namespace: name, secret: `${name}-tokens` },
});
const entryText = (record: WriteTokenRecord) =>
  `\n[tokens.${record.label}]\nhash = "${record.hash}"\npaths = ["/**"]\noperations = ["publish"]\n`;

let server: FakeApiServer;
const tokensToml = () =>
  Buffer.from(
    ((server.store.get('secrets', 'team-a', 'team-a-tokens')?.data ?? {}) as Record<string, string>)['tokens.toml'] ??
      '',
    'base64',
  ).toString('utf8');
const calls = () =>
  server.requests.map((request) => `${request.verb} ${request.namespace}/${request.name} ${request.status}`);
const sink = () => new SecretTokensSink({ core: apis(server).core });

before(async () => {
  server = await startFakeApiServer();
});
beforeEach(() => {
  if (server.store.get('secrets', 'team-a', 'team-a-tokens')) server.store.delete('secrets', 'team-a', 'team-a-tokens');
  server.store.create('secrets', {
    metadata: { name: 'team-a-tokens', namespace: 'team-a' },
    type: 'Opaque',
    data: { 'tokens.toml': Buffer.from(bootstrap).toString('base64'), 'other-key': 'eA==' },
  });
  server.requests.length = 0;
});
after(async () => {
  assertOnlyDeclaredCalls(server.requests, {
    brokerNamespace: 'demarkus',
    worlds: {
      'team-a': { namespace: 'team-a', tokensSecret: 'team-a-tokens' },
      'team-b': { namespace: 'team-b', tokensSecret: 'team-b-tokens' },
    },
  });
  await server.close();
});

describe('world tokens Secret sink (fake API server, real client-node)', () => {
  it("appends the FormatEntry bytes to the bootstrap file and keeps the Secret's other keys", async () => {
    const record = mintWriteTokenRecord('team-a', ['/**']);
    assert.equal(await sink().ensure(world('team-a'), record), 'appended');
    assert.equal(tokensToml(), bootstrap + entryText(record));
    assert.equal(
      ((server.store.get('secrets', 'team-a', 'team-a-tokens')?.data ?? {}) as Record<string, string>)['other-key'],
      'eA==',
    );
    assert.deepEqual(calls(), ['get team-a/team-a-tokens 200', 'update team-a/team-a-tokens 200']);
    assert.deepEqual(
      parseTokensFile(tokensToml(), 'world').map((token) => token.label),
      ['admin', 'broker-write-team-a'],
    );
  });

  it('sends no update when the entry is already there (no kubelet re-projection)', async () => {
    const record = mintWriteTokenRecord('team-a', ['/**']);
    await sink().ensure(world('team-a'), record);
    server.requests.length = 0;
    assert.equal(await sink().ensure(world('team-a'), record), 'unchanged');
    assert.deepEqual(calls(), ['get team-a/team-a-tokens 200']);
  });

  it("replaces the label's entry when the record was rotated, keeping the admin token", async () => {
    await sink().ensure(world('team-a'), mintWriteTokenRecord('team-a', ['/**']));
    const rotated = mintWriteTokenRecord('team-a', ['/**']);
    assert.equal(await sink().ensure(world('team-a'), rotated), 'replaced');
    assert.deepEqual(
      parseTokensFile(tokensToml(), 'world').map((token) => [token.label, token.hash]),
      [
        ['admin', hashToken('f'.repeat(64))],
        ['broker-write-team-a', rotated.hash],
      ],
    );
  });

  it("keeps an operator's concurrent edit: the 409 makes it redo the append on the new text", async () => {
    const operatorEntry = `\n[tokens.ci]\nhash = "${hashToken('1'.repeat(64))}"\npaths = ["/ci/**"]\noperations = ["publish"]\n`;
    let raced = false;
    server.onWrite((request) => {
      if (raced || request.verb !== 'update' || request.name !== 'team-a-tokens') return;
      raced = true;
      const current = server.store.get('secrets', 'team-a', 'team-a-tokens')!;
      server.store.update('secrets', {
        ...current,
        data: { 'tokens.toml': Buffer.from(bootstrap + operatorEntry).toString('base64') },
      });
    });
    const record = mintWriteTokenRecord('team-a', ['/**']);
    assert.equal(await sink().ensure(world('team-a'), record), 'appended');
    assert.equal(tokensToml(), bootstrap + operatorEntry + entryText(record));
    assert.deepEqual(calls(), [
      'get team-a/team-a-tokens 200',
      'update team-a/team-a-tokens 409',
      'get team-a/team-a-tokens 200',
      'update team-a/team-a-tokens 200',
    ]);
  });

  it('reports a missing world Secret, naming the bootstrap Job, and creates nothing', async () => {
    await assert.rejects(sink().ensure(world('team-b'), mintWriteTokenRecord('team-b', ['/**'])), (error: unknown) => {
      assert.ok(error instanceof TokensSinkError);
      assert.equal(
        error.message,
        'kubernetes: tokens secret team-b/team-b-tokens of world "team-b" not found (the world chart\'s tokens bootstrap Job creates it)',
      );
      return true;
    });
    assert.deepEqual(calls(), ['get team-b/team-b-tokens 404']);
  });

  it('leaves a tokens.toml that does not parse alone', async () => {
    const current = server.store.get('secrets', 'team-a', 'team-a-tokens')!;
    server.store.update('secrets', {
      ...current,
      data: { 'tokens.toml': Buffer.from('[tokens.admin\n').toString('base64') },
    });
    server.requests.length = 0;
    await assert.rejects(
      sink().ensure(world('team-a'), mintWriteTokenRecord('team-a', ['/**'])),
      (error: unknown) => error instanceof TokensSinkError && /left unchanged/.test(error.message),
    );
    assert.deepEqual(calls(), ['get team-a/team-a-tokens 200']);
  });

  it('refuses a world definition without a tokens Secret', async () => {
    await assert.rejects(
      sink().ensure({ ...world('team-a'), tokens: {} }, mintWriteTokenRecord('team-a', ['/**'])),
      /has no tokens Secret/,
    );
    assert.deepEqual(calls(), []);
  });
});
