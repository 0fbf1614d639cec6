/**
 * Threat: an authorization code replayed while its first redemption is still
 * issuing (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3: a code used twice SHOULD
 * revoke the tokens issued from it). A code that leaked (a log, a referrer,
 * a malicious app on the same loopback port) is raced against the legitimate
 * client; the replay must leave neither party with live tokens.
 *
 * Both attacks below succeeded before the fix (checked by running this file
 * against it): the token endpoint spent the code, then issued the refresh
 * family, and only then recorded the family on the code. A replay that came
 * before the family was written, or after it was written but before it was
 * recorded, found no family to revoke and got `invalid_grant`, and the first
 * redemption's refresh token stayed live. Now the family id is chosen when
 * the code is spent and stored on it in the same atomic step, a replay marks
 * the code, and the first redemption, once its family is written, checks that
 * mark and revokes what it issued.
 *
 * The real token endpoint and flow state over the real short-lived stores
 * (memory, and Redis on a real redis-server); the durable store is the real
 * memory store, wrapped so the test can hold the refresh family's write
 * (before it, or after it and before the endpoint goes on) to put the replay
 * exactly there.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { AuthorizationRequest } from '../../src/broker/auth/authorize/authorization-request.ts';
import { OAuthError } from '../../src/broker/auth/oauth-error.ts';
import type { SignInContext } from '../../src/broker/auth/sign-in-context.ts';
import { tokenEndpoint } from '../../src/broker/auth/token-endpoint.ts';
import {
  type DocumentMutation,
  type EphemeralStore,
  MemoryEphemeralStore,
  MemoryStateStore,
  RedisEphemeralStore,
  signInDocuments,
} from '../../src/broker/state/index.ts';
import { testSignInContext } from '../broker/signin/sign-in-context.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';

/** The real memory store; `holdNext` stops the next update of one document before or after it is stored. */
class HoldableStore extends MemoryStateStore {
  #hold: { document: string; when: 'before' | 'after'; reached: () => void; gate: Promise<void> } | undefined;

  holdNext(document: string, when: 'before' | 'after'): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let reached!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reachedPromise = new Promise<void>((resolve) => {
      reached = resolve;
    });
    this.#hold = { document, when, reached, gate };
    return { reached: reachedPromise, release };
  }

  override async update(document: string, mutate: DocumentMutation): Promise<Buffer | null> {
    const hold = this.#hold?.document === document ? this.#hold : undefined;
    if (hold === undefined) return super.update(document, mutate);
    this.#hold = undefined;
    if (hold.when === 'before') {
      hold.reached();
      await hold.gate;
      return super.update(document, mutate);
    }
    const stored = await super.update(document, mutate);
    hold.reached();
    await hold.gate;
    return stored;
  }
}

const signInContext = (durable: MemoryStateStore, ephemeral: EphemeralStore) =>
  testSignInContext({ durable, ephemeral });

const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const redirectUri = 'http://127.0.0.1:53682/callback';

/** A code for the built-in CLI (a refresh_token client), as the IdP callback issues it. */
async function issuedCode(context: SignInContext): Promise<string> {
  const request: AuthorizationRequest = {
    clientId: 'demarkus-cli',
    redirectUri,
    redirectUriGiven: true,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    scope: 'mark.read mark.write',
    resource: context.resource,
  };
  const identity = { subject: 'victim', email: 'victim@example.com', groups: [] };
  return context.flows.issueCode(request, identity, Math.floor(Date.now() / 1000));
}

const redeem = (context: SignInContext, code: string) =>
  tokenEndpoint(context, undefined, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: 'demarkus-cli',
  });

const alreadyUsed = (error: unknown) =>
  error instanceof OAuthError && error.error === 'invalid_grant' && /already used/.test(error.description);

function replayDuringRedemption(name: string, ephemeral: () => EphemeralStore) {
  for (const when of ['before', 'after'] as const)
    it(`${name}: a replay ${when} the refresh family is written leaves no live refresh token`, async () => {
      const durable = new HoldableStore();
      const context = await signInContext(durable, ephemeral());
      const code = await issuedCode(context);
      const hold = durable.holdNext(signInDocuments.refreshTokens, when);
      const first = redeem(context, code).then(
        (response) => ({ ok: true as const, response }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      await hold.reached;
      await assert.rejects(redeem(context, code), alreadyUsed);
      hold.release();
      const outcome = await first;
      assert.equal(await context.refreshTokens.familyCount(), 0, 'the family issued from the replayed code is revoked');
      if (outcome.ok) {
        // Whatever the first redemption was handed, its refresh token must not work.
        await assert.rejects(
          tokenEndpoint(context, undefined, {
            grant_type: 'refresh_token',
            refresh_token: String(outcome.response.refresh_token),
            client_id: 'demarkus-cli',
          }),
          (error: unknown) => error instanceof OAuthError && error.error === 'invalid_grant',
        );
      } else assert.ok(alreadyUsed(outcome.error), String(outcome.error));
    });
}

describe('security: a code replayed during its first redemption revokes what it issued', () => {
  replayDuringRedemption('memory', () => new MemoryEphemeralStore());

  describe('on a real redis-server', () => {
    let server: RedisServer;
    let client: Redis;
    before(async () => {
      server = await startRedisServer();
      client = new Redis({ host: '127.0.0.1', port: server.port, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      await new Promise((resolve) => client.once('ready', resolve));
    });
    after(async () => {
      client?.disconnect();
      await server?.close();
    });
    replayDuringRedemption('redis', () => new RedisEphemeralStore({ client, keyPrefix: `replay-${randomUUID()}:` }));
  });
});
