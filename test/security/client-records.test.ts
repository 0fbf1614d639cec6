/**
 * Threat: one signed-in person fills the durable store of registered clients
 * until no new client can finish its first sign-in, for anyone.
 *
 * On Kubernetes every used client's record is one key of the one Secret
 * `demarkus-broker-state-registered-clients`, and the API server refuses a
 * Secret whose data passes 1 MiB (422 Invalid). Registering is anonymous and
 * a record becomes durable on its first token exchange, so a person who can
 * sign in registers clients with 4 KiB of metadata and redeems one code with
 * each. The attack succeeded before the records were bounded (checked by
 * running this file against it): the first use of client 247 (of 250) failed
 * with the 422, and so did the first use of every later client, a
 * legitimate one included, because nothing ever removed a record.
 *
 * The real `SecretStateStore` and the real @kubernetes/client-node against the
 * fake API server, which enforces the 1 MiB Secret limit as the real one does
 * (test/kubernetes/fake-api/validate.ts); the real refresh-token store beside
 * it, so that live sign-ins are what protect a record. The first 180 of the
 * flood's records are written straight into the fake API server's Secret as
 * the real path leaves them; the sign-ins from 181 on, which carry the records
 * across the 768 KiB bound (and, unbounded, past the 1 MiB limit at 247), take
 * the real path.
 *
 * And the order of a first code exchange, through the real broker and the real
 * development IdP: the refresh-token family was issued before the client's
 * record was made durable, so when that write failed (the 422 above) the code
 * was spent, the family stored, and the client left to vanish with its
 * short-lived registration. Checked by running the last test against it: the
 * family was there after the failed exchange.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { RegisteredClients } from '../../src/broker/auth/clients/registered-clients.ts';
import { parseRegistrationRequest } from '../../src/broker/auth/clients/registration-request.ts';
import { defaultMaxRefreshFamiliesPerUser, RefreshTokens } from '../../src/broker/auth/tokens/refresh-tokens.ts';
import { defaultDocumentLocation, SecretStateStore } from '../../src/broker/kubernetes/index.ts';
import { MemoryEphemeralStore, registeredClientDocument } from '../../src/broker/state/index.ts';
import { startSignInStack, type SignInStack } from '../e2e/signin-fixture.ts';
import { UserAgent } from '../e2e/signin-user-agent.ts';
import { startFakeApiServer, type FakeApiServer } from '../kubernetes/fake-api/server.ts';
import { maxSecretBytes } from '../kubernetes/fake-api/validate.ts';
import { apis } from '../kubernetes/helpers.ts';

const namespace = 'demarkus';
const clientsSecret = 'demarkus-broker-state-registered-clients';
/** The bound on the records (docs/security.md): 3/4 of the 1 MiB Secret limit. */
const maxClientRecordBytes = (maxSecretBytes * 3) / 4;

/** Two redirect URIs of 1,900 characters and a name: as close to the 4 KiB record bound as a registration gets. */
const largest = parseRegistrationRequest({
  client_name: 'x'.repeat(150),
  redirect_uris: [0, 1].map((i) => `https://attacker.example/${i}/${'a'.repeat(1870)}`),
  token_endpoint_auth_method: 'client_secret_basic',
  grant_types: ['authorization_code', 'refresh_token'],
});

describe('security: the registered clients never fill their Secret (fake API server enforcing the 1 MiB Secret limit)', () => {
  let server: FakeApiServer;
  before(async () => {
    server = await startFakeApiServer();
  });
  after(async () => server?.close());

  const secretDataBytes = () =>
    Object.values((server.store.get('secrets', namespace, clientsSecret)?.data ?? {}) as Record<string, string>).reduce(
      (sum, value) => sum + Buffer.from(value, 'base64').length,
      0,
    );

  it('a flood of 250 used maximum-size clients leaves room for every new client, and live sign-ins survive it', async () => {
    let now = Date.UTC(2026, 11, 6);
    const clock = () => now;
    const store = new SecretStateStore({
      core: apis(server).core,
      namespace,
      locate: defaultDocumentLocation('demarkus-broker-refresh-tokens'),
    });
    const refreshTokens = new RefreshTokens(store, { ttlMs: 30 * 86_400_000, now: clock });
    const clients = new RegisteredClients(store, new MemoryEphemeralStore({ now: clock }), {
      maxClients: 10_000,
      liveClients: () => refreshTokens.clientsWithLiveFamilies(),
      now: clock,
    });
    const identityOf = (subject: string) => ({ subject, email: `${subject}@example.com` }) as never;
    /** What the token endpoint does on a first code exchange: the client becomes durable, then a family is issued. */
    const signIn = async (subject: string) => {
      const registered = await clients.register(largest);
      await clients.touch(registered.client.clientId);
      const identity = identityOf(subject);
      await refreshTokens.issue({ clientId: registered.client.clientId, identity, scope: 'mark.read', resource: 'r' });
      now += 60_000;
      return registered.client.clientId;
    };

    const alice = await signIn('alice');
    // Each first use rewrites the whole Secret, up to 768 KiB, through the fake API server: 250 of
    // them took over two minutes on a loaded machine. The first `seeded` of mallory's clients are
    // written into the Secret as the real path leaves them (same record, same size, checked against
    // alice's), and the last of them get live refresh-token families as her sign-ins would; only
    // the remaining sign-ins, which carry the records across the bound, take the real path.
    const seeded = 180;
    const records = (server.store.get('secrets', namespace, clientsSecret)?.data ?? {}) as Record<string, string>;
    const aliceRecord = records[registeredClientDocument(alice)];
    assert.ok(aliceRecord !== undefined, "alice's first use made her client's record durable");
    const seededIds: string[] = [];
    for (let i = 1; i <= seeded; i += 1) {
      const clientId = randomBytes(16).toString('hex');
      const at = Math.floor(now / 1000);
      const record = {
        clientId,
        redirectUris: largest.redirectUris,
        grantTypes: largest.grantTypes,
        authMethod: largest.authMethod,
        issuedAt: at,
        name: largest.clientName,
        secretHash: randomBytes(32).toString('hex'),
        lastUsedAt: at,
      };
      records[registeredClientDocument(clientId)] = Buffer.from(JSON.stringify(record)).toString('base64');
      seededIds.push(clientId);
      now += 60_000;
    }
    assert.equal(
      Buffer.from(records[registeredClientDocument(seededIds[0]!)]!, 'base64').length,
      Buffer.from(aliceRecord, 'base64').length,
      'a seeded record is the size of a real one',
    );
    const secret = server.store.get('secrets', namespace, clientsSecret)!;
    server.store.update('secrets', { ...secret, data: records });
    for (const clientId of seededIds.slice(-defaultMaxRefreshFamiliesPerUser))
      await refreshTokens.issue({ clientId, identity: identityOf('mallory'), scope: 'mark.read', resource: 'r' });
    const seededBytes = secretDataBytes();
    assert.ok(seededBytes < maxClientRecordBytes, `${seededBytes} bytes seeded, under the 768 KiB bound`);

    for (let i = seeded + 1; i <= 250; i += 1)
      await signIn('mallory').catch((error: unknown) => assert.fail(`the first use of client ${i} failed: ${error}`));
    const kept = Object.keys(server.store.get('secrets', namespace, clientsSecret)?.data ?? {}).length;
    assert.ok(kept < 1 + 250, `the sign-ins crossed the bound and records were removed (${kept} kept)`);
    assert.ok(
      secretDataBytes() <= maxClientRecordBytes,
      `${secretDataBytes()} bytes of client records, within the 768 KiB bound`,
    );
    const newcomer = await signIn('bob').catch((error: unknown) =>
      assert.fail(`a new client's first use failed: ${error}`),
    );

    const fresh = new RegisteredClients(store, new MemoryEphemeralStore());
    assert.ok(await fresh.find(newcomer), 'a new client signs in and is found by another replica');
    assert.ok(await fresh.find(alice), "the oldest client is kept while its person's sign-in is live");
  });
});

describe('security: a failed first use issues nothing and keeps the client (real broker, real IdP)', () => {
  const redirectUri = 'http://127.0.0.1:53682/callback';
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack();
  });
  after(async () => stack?.close());

  /** Authorize → consent → IdP login → code, then the code exchange, as an MCP client does it. */
  async function signIn(clientId: string, email: string) {
    const config = await oidc.discovery(
      new URL(stack.issuer),
      clientId,
      { redirect_uris: [redirectUri] },
      oidc.None(),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const agent = new UserAgent();
    agent.stopAt = redirectUri;
    let page = await agent.go(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid mark.read',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        resource: stack.resource,
      }).href,
    );
    page = await agent.submit(page, {}, 'decision=approve');
    const back = new URL((await stack.signInFrom(agent, page, email)).url);
    return stack.post('/oauth/token', {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId,
    });
  }
  const familiesOf = async (clientId: string) => {
    const text = await readFile(join(stack.dir, 'state', 'refresh_tokens.json'), 'utf8').catch(() => '{"families":{}}');
    const { families } = JSON.parse(text) as { families: Record<string, { clientId: string }> };
    return Object.values(families).filter((family) => family.clientId === clientId).length;
  };

  it('answers 503 without a refresh-token family when the record cannot be written, and the client signs in again', async () => {
    const registration = await fetch(`${stack.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    const clientId = ((await registration.json()) as { client_id: string }).client_id;
    // A directory where the record goes: the durable write fails as a full Secret's 422 did.
    const record = join(stack.dir, 'state', registeredClientDocument(clientId));
    await mkdir(record, { recursive: true });

    const failed = await signIn(clientId, 'carol@example.com');
    assert.equal(await familiesOf(clientId), 0, 'no refresh-token family for a client whose record was not written');
    assert.equal(failed.status, 503, JSON.stringify(failed.json));
    assert.equal(failed.json.error, 'temporarily_unavailable');
    assert.match(String(failed.json.error_description), /sign in again/);

    await rmdir(record);
    const again = await signIn(clientId, 'carol@example.com');
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.ok(again.json.refresh_token);
    assert.equal(await familiesOf(clientId), 1);
  });
});
