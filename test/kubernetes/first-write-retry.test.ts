/**
 * The first-write retry (Go broker `dispatchWithAuth`) over the Kubernetes
 * backends, against a fake Kubernetes API server: a world that sees its
 * tokens Secret only after the kubelet's projection lag is written to after a
 * counted number of sends and pauses, and a world Secret reset under a cached
 * token is repaired by provisioning again. Pauses are recorded, not waited
 * for; the assertions are on sequences and counts.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokensFile } from '../../src/world/auth/index.ts';
import { hashToken } from '../../src/protocol/token.ts';
import type { MarkResponse } from '../../src/protocol/response.ts';
import { openAllowList } from '../../src/broker/worlds/allowlist.ts';
import { sendWithFirstMintRetry } from '../../src/broker/worlds/first-mint.ts';
import type { WorldDefinition } from '../../src/broker/worlds/world-definition.ts';
import { WriteTokenProvisioner } from '../../src/broker/worlds/write-tokens/index.ts';
import { SecretTokensSink, SecretWriteTokenStore } from '../../src/broker/kubernetes/index.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api/server.ts';
import { apis, assertOnlyDeclaredCalls } from './helpers.ts';

const defaults = { maxAttempts: 6, initialBackoffMs: 250, maxBackoffMs: 8_000 };
const bootstrap = `[tokens.admin]\nhash = "${hashToken('f'.repeat(64))}"\npaths = ["/**"]\noperations = ["publish"]\n`;
const world: WorldDefinition = {
  name: 'team-a',
  address: 'team-a.team-a.svc.cluster.local:6309',
  source: 'config',
  allow: openAllowList,
  writeTokenPaths: ['/**'],
  tokens: { namespace: 'team-a', secret: 'team-a-tokens' },
};

let server: FakeApiServer;
const liveTokensToml = () =>
  Buffer.from(
    ((server.store.get('secrets', 'team-a', 'team-a-tokens')?.data ?? {}) as Record<string, string>)['tokens.toml'] ??
      '',
    'base64',
  ).toString();
const answer = (status: string): MarkResponse =>
  ({ status, metadata: {}, body: new Uint8Array() }) as unknown as MarkResponse;

/** A world whose mounted tokens.toml catches up with the Secret `lag` sends after each change (the kubelet's projection delay). */
function laggingWorld(lag: number) {
  let mounted = bootstrap;
  let seen = bootstrap;
  let sendsSinceChange = 0;
  return async (rawToken: string): Promise<MarkResponse> => {
    const live = liveTokensToml();
    if (live !== seen) {
      seen = live;
      sendsSinceChange = 0;
    }
    if (sendsSinceChange++ >= lag) mounted = live;
    return answer(
      parseTokensFile(mounted, 'mounted').some((token) => token.hash === hashToken(rawToken))
        ? 'created'
        : 'unauthorized',
    );
  };
}

/** `send`, noting the status of each reply in `events`. */
const notingStatus =
  (send: (rawToken: string) => Promise<MarkResponse>, events: string[]) =>
  async (rawToken: string): Promise<MarkResponse> => {
    const reply = await send(rawToken);
    events.push(reply.status);
    return reply;
  };

/** What the broker does on an unauthorized first write: forget the world's cached token and provision again. */
const provisionAgain = (tokens: WriteTokenProvisioner) => {
  tokens.invalidate(world.name);
  return tokens.token(world);
};

const provisioner = () =>
  new WriteTokenProvisioner(
    new SecretWriteTokenStore({ core: apis(server).core, namespace: 'demarkus' }),
    new SecretTokensSink({ core: apis(server).core }),
  );

before(async () => {
  server = await startFakeApiServer();
});
beforeEach(() => {
  for (const [namespace, name] of [
    ['team-a', 'team-a-tokens'],
    ['demarkus', 'demarkus-broker-write-token-team-a'],
  ] as const) {
    if (server.store.get('secrets', namespace, name)) server.store.delete('secrets', namespace, name);
  }
  server.store.create('secrets', {
    metadata: { name: 'team-a-tokens', namespace: 'team-a' },
    data: { 'tokens.toml': Buffer.from(bootstrap).toString('base64') },
  });
  server.requests.length = 0;
});
after(async () => {
  assertOnlyDeclaredCalls(server.requests, {
    brokerNamespace: 'demarkus',
    worlds: { 'team-a': { namespace: 'team-a', tokensSecret: 'team-a-tokens' } },
  });
  await server.close();
});

describe('first write through the Kubernetes backends (fake API server)', () => {
  it('provisions on the first write, then waits out a two-send projection lag: 3 sends, pauses 250 and 500 ms', async () => {
    const tokens = provisioner();
    const pauses: number[] = [];
    const events: string[] = [];
    const first = await tokens.token(world);
    const result = await sendWithFirstMintRetry(first, defaults, {
      send: notingStatus(laggingWorld(2), events),
      reprovision: async () => {
        events.push('reprovision');
        return provisionAgain(tokens);
      },
      wait: async (ms) => void pauses.push(ms),
    });
    assert.equal(result?.status, 'created');
    assert.deepEqual(events, ['unauthorized', 'reprovision', 'unauthorized', 'created']);
    assert.deepEqual(pauses, [250, 500]);
    const creates = server.requests.filter((request) => request.verb === 'create').length;
    assert.equal(creates, 1, 'one record minted; reprovisioning re-read it');
  });

  it('gives up after maxAttempts sends when the world never catches up', async () => {
    const tokens = provisioner();
    const pauses: number[] = [];
    let sends = 0;
    const result = await sendWithFirstMintRetry(await tokens.token(world), defaults, {
      send: async () => {
        sends++;
        return answer('unauthorized');
      },
      reprovision: () => provisionAgain(tokens),
      wait: async (ms) => void pauses.push(ms),
    });
    assert.equal(result, null);
    assert.equal(sends, 6);
    assert.deepEqual(pauses, [250, 500, 1000, 2000, 4000]);
  });

  it('repairs a world Secret reset under a cached token: the first unauthorized provisions again and appends the entry', async () => {
    const tokens = provisioner();
    const cached = await tokens.token(world);
    // An operator restores the world's Secret from the bootstrap: the broker entry is gone.
    const secret = server.store.get('secrets', 'team-a', 'team-a-tokens')!;
    server.store.update('secrets', { ...secret, data: { 'tokens.toml': Buffer.from(bootstrap).toString('base64') } });
    const events: string[] = [];
    const result = await sendWithFirstMintRetry(cached, defaults, {
      send: notingStatus(laggingWorld(0), events),
      reprovision: async () => {
        const again = await provisionAgain(tokens);
        events.push(again === cached ? 'reprovision: same token' : 'reprovision: new token');
        return again;
      },
      wait: async () => {},
    });
    assert.equal(result?.status, 'created');
    assert.deepEqual(events, ['unauthorized', 'reprovision: same token', 'created']);
    assert.equal(liveTokensToml().split('[tokens.broker-write-team-a]').length - 1, 1);
  });
});
