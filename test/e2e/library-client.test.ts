import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { WorldServer } from '../../src/world/world-server.ts';
import { mintIdToken } from '../../src/broker/auth/tokens/id-token.ts';
import { startLoopbackWorldServer, testTls } from '../world/world-fixture.ts';
import { initializeBody, jsonRpcHeaders } from '../broker/http/raw-http.ts';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';
import { UserAgent } from './signin-user-agent.ts';
import {
  InvalidClientError,
  InvalidGrantError,
  LibraryGateway,
  LibraryOAuth,
  LibrarySessions,
  LoginRequiredError,
  goMcpProtocolVersion,
  parseCatalogTable,
  parseMergeCandidate,
  readHub,
  type LibraryConfig,
} from './library-web-client.ts';
import { buildExport } from '../../src/broker/graph/graph-export.ts';
import { crawlerIdentity } from '../../src/broker/graph/federation/federation-crawl.ts';

const library = {
  clientId: 'library-web',
  secret: "library:secret%with+reserved (it's *)",
  redirectUri: 'https://library.example.test/auth/callback',
};
/** A second web client the operator left on the default bearer (access tokens). */
const reports = {
  clientId: 'reports-web',
  secret: 'reports-secret-value',
  redirectUri: 'https://reports.example.test/auth/callback',
};
const idpRedirect = 'https://library.example.test/idp-callback';
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * The library web app's contract with the broker, driven by a client that
 * takes the library's own steps (test/e2e/library-web-client.ts): discovery,
 * sign-in through the development IdP, the code exchange, one MCP session
 * with the ID token as bearer, every tool it calls with the arguments it
 * sends, a refresh after expiry, a merge after a publish conflict, logout.
 * Then the attacks on the ID-token bearer, each refused.
 */
describe('the library web app against the broker', () => {
  let stack: SignInStack;
  let world: WorldServer;
  let oauth: LibraryOAuth;
  let sessions: LibrarySessions;
  let gateway: LibraryGateway;
  /** DEMARKUS_BROKER_URL: the library puts `/mcp` after it (broker.go `NewGateway`). */
  let brokerUrl: string;
  const config = (overrides: Partial<LibraryConfig> = {}): LibraryConfig => ({
    brokerUrl: stack.issuer,
    clientId: library.clientId,
    clientSecret: library.secret,
    redirectUri: library.redirectUri,
    // The library's DEMARKUS_SCOPES; it publishes, so write is asked for beside read.
    scopes: ['mark.read', 'mark.write'],
    ...overrides,
  });

  before(async () => {
    const tls = await testTls();
    let worldRoot = '';
    stack = await startSignInStack({
      idpClients: [{ clientId: library.clientId, clientSecret: 'idp-side-secret', redirectUris: [idpRedirect] }],
      brokerConfig: (document) => {
        worldRoot = join(document.storage.dir, '..', 'root-world');
        document.worlds = [
          {
            name: 'root',
            internalAddress: 'localhost:1',
            tokensFile: join(worldRoot, 'tokens.toml'),
            defaultToken: { paths: ['/**'] },
          },
        ];
        document.worldDialer = { caFile: join(worldRoot, 'ca.pem'), requestTimeout: '3s' };
        document.webClients = [
          {
            clientID: library.clientId,
            clientSecretHash: sha256(library.secret),
            redirectURIs: [library.redirectUri],
            name: 'Library',
            bearer: 'id_token',
          },
          {
            clientID: reports.clientId,
            clientSecretHash: sha256(reports.secret),
            redirectURIs: [reports.redirectUri],
          },
        ];
        document.server.mcp.firstMintInitialBackoff = '50ms';
      },
      beforeBroker: async (document) => {
        await mkdir(worldRoot, { recursive: true });
        await writeFile(join(worldRoot, 'tokens.toml'), '[tokens]\n');
        await writeFile(join(worldRoot, 'ca.pem'), tls.cert);
        world = await startLoopbackWorldServer({
          name: 'root',
          root: join(worldRoot, 'store'),
          tokensFile: join(worldRoot, 'tokens.toml'),
        });
        document.worlds[0].internalAddress = `localhost:${world.port}`;
      },
    });
    oauth = new LibraryOAuth(config());
    sessions = new LibrarySessions(oauth);
    // The library appends /mcp to its one broker URL; an ingress routes that path to the MCP
    // listener (docs/signin.md "Web apps"). Here the two listeners have their own ports.
    brokerUrl = stack.broker.trust.resource.replace(/\/mcp$/, '');
    gateway = new LibraryGateway(brokerUrl);
  });
  after(async () => {
    await gateway.close();
    await stack.close();
    await world.close();
  });

  /** The reader's browser: login/start → broker → IdP → back to the library's callback. */
  const signIn = async (client: LibraryOAuth, email: string, redirectUri = library.redirectUri) => {
    const { authUrl, state, verifier } = await client.begin();
    const agent = new UserAgent();
    agent.stopAt = redirectUri;
    const idpPage = await agent.go(authUrl);
    const back = await stack.signInFrom(agent, idpPage, email);
    assert.equal(back.status, 0, `no redirect to the library: ${agent.trace.join(', ')} ${back.html.slice(0, 200)}`);
    const callback = new URL(back.url);
    // The callback's checks: the state is the one minted, no error, a code.
    assert.equal(callback.searchParams.get('state'), state);
    assert.equal(callback.searchParams.get('error'), null);
    const code = callback.searchParams.get('code');
    assert.ok(code);
    return client.exchange(code, verifier);
  };

  const mcpStatus = async (bearer: string) => {
    const response = await fetch(stack.resource, {
      method: 'POST',
      headers: jsonRpcHeaders(bearer),
      body: initializeBody,
    });
    await response.body?.cancel();
    return response.status;
  };

  let sessionId = '';
  let bearer = '';

  it('finds the endpoints it reads in the RFC 8414 metadata, and revocation at /token/revoke', async () => {
    const response = await fetch(`${stack.issuer}/.well-known/oauth-authorization-server`);
    assert.equal(response.status, 200);
    const metadata = (await response.json()) as Record<string, unknown>;
    assert.equal(metadata.authorization_endpoint, `${stack.issuer}/oauth/authorize`);
    assert.equal(metadata.token_endpoint, `${stack.issuer}/oauth/token`);
    // RFC 7009 §2.2: an unknown token is a success, so logout never blocks; a wrong secret is not.
    await new LibraryOAuth(config()).revoke('not-a-token-we-issued');
    await assert.rejects(new LibraryOAuth(config({ clientSecret: 'wrong' })).revoke('x'), /revoke returned 401/);
  });

  it('signs in without openid and gets an id_token for itself, lasting expires_in', async () => {
    const before = Date.now();
    const tokens = await signIn(oauth, 'reader@example.com');
    assert.notEqual(tokens.refreshToken, '');
    const claims = decodeJwt(tokens.idToken);
    assert.equal(claims.iss, stack.issuer);
    assert.equal(claims.aud, library.clientId);
    assert.equal(claims.azp, library.clientId);
    assert.equal(claims.email, 'reader@example.com');
    assert.equal(claims.hd, 'example.com');
    assert.equal(claims.scope, 'mark.read mark.write');
    const lifetime = (claims.exp! - claims.iat!) * 1000;
    assert.ok(Math.abs(tokens.expiry - before - lifetime) < 5_000, 'expires_in is the id_token lifetime');
    const session = sessions.create(tokens);
    sessionId = session.id;
    bearer = await sessions.token(sessionId);
    assert.equal(bearer, tokens.idToken, 'a fresh session hands out its id_token without refreshing');
  });

  it('lists the worlds from the mark_worlds table, with the address column', async () => {
    const worlds = await gateway.worlds(bearer);
    assert.deepEqual(
      worlds.map((w) => [w.name, w.address]),
      [['root', `mark://localhost:${world.port}`]],
    );
    assert.equal(gateway.protocolVersionOf(bearer), goMcpProtocolVersion, 'the revision mcp-go asks for is served');
  });

  it("ends an MCP session with mcp-go's DELETE, which carries no bearer and is refused (401) like any such request", async () => {
    const another = new LibraryGateway(brokerUrl);
    assert.equal((await another.worlds(bearer)).length, 1);
    await another.close();
    // mcp-go v0.44.0 `StreamableHTTP.Close` leaves out the headers the library configured, the
    // bearer among them. The broker verifies every request (docs/decisions.md), so the session
    // stays until the session store lets it idle out.
    assert.deepEqual(another.closeStatuses, [401]);
  });

  it('creates a document with on_conflict=fail and metadata, and a second create is a conflict', async () => {
    const created = await gateway.publish(
      bearer,
      'root',
      '/shelf/quic.md',
      '# QUIC\n\nStreams and datagrams.\n',
      { title: 'QUIC notes', tags: ['transport', 'status:accepted'], importance: '0.8' },
      0,
    );
    assert.deepEqual(created, { version: 1 });
    const again = await gateway.callTool(bearer, 'mark_publish', {
      url: 'mark://root/shelf/quic.md',
      body: '# Another\n',
      expected_version: 0,
      on_conflict: 'fail',
    });
    // Not a tool error: the world's own answer, forwarded as the reference broker forwards it.
    assert.equal(again.isError, false);
    assert.match(again.text, /^status: conflict\nserver-version: 1\nyour-version: 0\n\n/);
    assert.equal(parseMergeCandidate(again.text), null);
    // broker.go `Publish` never reads the status line: no merge candidate and no `version:` line
    // make it a publish of version 0, and the desk then re-reads the existing document as if it
    // were the new one. The library must read `status: conflict` (docs/decisions.md).
    assert.deepEqual(await gateway.publish(bearer, 'root', '/shelf/quic.md', '# Another\n', {}, 0), { version: 0 });
    assert.equal((await gateway.fetch(bearer, 'root', '/shelf/quic.md')).body, '# QUIC\n\nStreams and datagrams.\n');
  });

  it('reads a document whole on every fetch of the session, large ones included', async () => {
    const first = await gateway.fetch(bearer, 'root', '/shelf/quic.md');
    assert.equal(first.body, '# QUIC\n\nStreams and datagrams.\n');
    assert.equal(first.metadata.version, '1');
    assert.equal(first.metadata.title, 'QUIC notes');
    assert.equal(first.metadata.tags, 'transport,status:accepted');
    assert.ok(first.metadata.modified);
    // An agent would get "status: unchanged" here; the library re-reads live and needs the body.
    const second = await gateway.fetch(bearer, 'root', '/shelf/quic.md');
    assert.equal(second.body, first.body);
    const large = `# Big\n\n${'A line of a long chapter.\n'.repeat(600)}`;
    assert.deepEqual(await gateway.publish(bearer, 'root', '/shelf/big.md', large, {}, 0), { version: 1 });
    assert.equal((await gateway.fetch(bearer, 'root', '/shelf/big.md')).body, large);
  });

  it('lists a directory and the editions of a document', async () => {
    const listing = await gateway.list(bearer, 'root', '/shelf/');
    assert.match(listing.body, /quic\.md/);
    assert.match(listing.body, /big\.md/);
    const editions = await gateway.versions(bearer, 'root', '/shelf/quic.md');
    assert.match(editions.body, /\bv?1\b/);
  });

  it('reads the catalog with match-all, a limit and a tag filter, as the floor and tag pages do', async () => {
    const all = await gateway.lookup(bearer, 'root', '/', '*', '', 12);
    const docs = parseCatalogTable(all.body, 12);
    const quic = docs.find((d) => d.path === '/shelf/quic.md');
    assert.deepEqual(quic, {
      path: '/shelf/quic.md',
      title: 'QUIC notes',
      importance: 0.8,
      tags: ['transport', 'status:accepted'],
    });
    const tagged = await gateway.lookup(bearer, 'root', '/', 'transport', 'tag=transport', 0);
    assert.deepEqual(
      parseCatalogTable(tagged.body, 100).map((d) => d.path),
      ['/shelf/quic.md'],
    );
    const searched = await gateway.lookup(bearer, 'root', '/', 'quic', '', 0);
    assert.ok(parseCatalogTable(searched.body, 100).some((d) => d.path === '/shelf/quic.md'));
  });

  it('edits with on_conflict=merge, gets a merge candidate for a stale edit, and publishes it', async () => {
    const edited = await gateway.publish(
      bearer,
      'root',
      '/shelf/quic.md',
      '# QUIC\n\nStreams and datagrams.\n\nZero RTT.\n',
      {},
      1,
    );
    assert.deepEqual(edited, { version: 2 });
    const stale = await gateway.publish(
      bearer,
      'root',
      '/shelf/quic.md',
      '# QUIC transport\n\nStreams and datagrams.\n',
      {},
      1,
    );
    assert.equal(stale.version, 0);
    assert.ok(stale.merge);
    assert.equal(stale.merge.publishAtVersion, 2);
    assert.equal(stale.merge.hasMarkers, false);
    assert.equal(stale.merge.body, '# QUIC transport\n\nStreams and datagrams.\n\nZero RTT.\n');
    const resolved = await gateway.publish(bearer, 'root', '/shelf/quic.md', stale.merge.body, {}, 2);
    assert.deepEqual(resolved, { version: 3 });
  });

  it('appends without an expected version and reads the new version from the answer', async () => {
    assert.equal(await gateway.append(bearer, 'root', '/shelf/quic.md', '\nAppended by the desk.\n'), 4);
    const read = await gateway.fetch(bearer, 'root', '/shelf/quic.md');
    assert.match(read.body, /Appended by the desk\.\n$/);
    assert.equal(read.metadata.version, '4');
  });

  it("re-reads a changed document with the world's metadata only, no note about this MCP session", async () => {
    // The session read /shelf/quic.md at v4; an append makes v5. reading.go `otherMeta` shows every
    // metadata key it does not know in the page's margin, so a session note would be shown as the
    // document's own metadata.
    assert.equal(await gateway.append(bearer, 'root', '/shelf/quic.md', 'One more line.\n'), 5);
    const read = await gateway.fetch(bearer, 'root', '/shelf/quic.md');
    assert.equal(read.metadata.version, '5');
    assert.deepEqual(Object.keys(read.metadata).sort(), [
      'agent',
      'content-hash',
      'etag',
      'modified',
      'type',
      'version',
    ]);
  });

  it("reads the hub's /graph.md nodes, but no edge from the reference export's six-column edge table", async () => {
    const quic = 'mark://root/shelf/quic.md';
    const big = 'mark://root/shelf/big.md';
    // The export as mark_graph_publish and the federation crawl write it (Go `BuildExport`).
    const body = buildExport(
      new Date(0),
      [
        { url: quic, title: 'QUIC', status: 'ok', linkCount: 1 },
        { url: big, title: 'Big', status: 'ok', linkCount: 0 },
      ],
      [{ from: quic, to: big, rel: '', label: 'the long chapter', anchor: '', count: 1 }],
    );
    assert.match(body, /\| From \| To \| Rel \| Label \| Anchor \| Count \|/);
    // Only the federation crawl writes the hub's /graph.md, through the broker's world gateway.
    const published = await stack.broker.gateway.write('root', crawlerIdentity, {
      verb: 'PUBLISH',
      path: '/graph.md',
      metadata: { agent: crawlerIdentity.email },
      body,
    });
    assert.equal(published.status, 'created');
    const hub = await readHub(gateway, bearer, 'root');
    // hub.go `parseGraphExport` takes a row of four cells or more for a node and only a row of two
    // for an edge, so the six-column edge row reads as a node named after its From (with Rel as
    // its status) and the floor and world map get no hub edge (docs/decisions.md).
    assert.deepEqual(
      hub.nodes.map((node) => `${node.world}${node.path} [${node.status}]`),
      ['root/shelf/big.md [ok]', 'root/shelf/quic.md [ok]', 'root/shelf/quic.md []'],
    );
    assert.deepEqual(hub.edges, []);
  });

  let rotatedAway = '';

  it('refreshes after the id_token expires: a new id_token, a rotated refresh token, a new MCP session', async () => {
    const before = sessions.peek(sessionId)!;
    const opened = gateway.sessionsOpened;
    sessions.now = () => before.idTokenExpiry + 1_000;
    const fresh = await sessions.token(sessionId);
    sessions.now = Date.now;
    const after = sessions.peek(sessionId)!;
    assert.notEqual(fresh, before.idToken);
    assert.notEqual(after.refreshToken, before.refreshToken, 'the broker rotates and the library keeps the new one');
    assert.equal(decodeJwt(fresh).aud, library.clientId);
    assert.ok((await gateway.worlds(fresh)).length === 1);
    assert.equal(gateway.sessionsOpened, opened + 1, 'one MCP session per bearer');
    rotatedAway = before.refreshToken;
    bearer = fresh;
  });

  it('revokes the whole family when a rotated-away refresh token comes back, and the session must log in', async () => {
    await assert.rejects(oauth.refresh(rotatedAway), InvalidGrantError);
    sessions.now = () => sessions.peek(sessionId)!.idTokenExpiry + 1_000;
    try {
      await assert.rejects(sessions.token(sessionId), LoginRequiredError);
    } finally {
      sessions.now = Date.now;
    }
    assert.equal(sessions.peek(sessionId), undefined, 'a dead grant drops the session');
  });

  it('logs out by revoking the refresh token at /token/revoke', async () => {
    const session = sessions.create(await signIn(oauth, 'second@example.com'));
    const { refreshToken } = sessions.peek(session.id)!;
    await sessions.logout(session.id);
    assert.equal(sessions.peek(session.id), undefined);
    await assert.rejects(oauth.refresh(refreshToken), InvalidGrantError);
  });

  it('maps a wrong client secret to invalid_client', async () => {
    const wrong = new LibraryOAuth(config({ clientSecret: 'not-the-secret' }));
    await assert.rejects(wrong.refresh('anything'), InvalidClientError);
  });

  describe('attacks on the id_token bearer', () => {
    it('refuses the id_token of a web client not configured for it; its access token still works', async () => {
      const client = new LibraryOAuth({
        brokerUrl: stack.issuer,
        clientId: reports.clientId,
        clientSecret: reports.secret,
        redirectUri: reports.redirectUri,
        scopes: ['openid', 'mark.read'],
      });
      const { authUrl, state, verifier } = await client.begin();
      const agent = new UserAgent();
      agent.stopAt = reports.redirectUri;
      const back = await stack.signInFrom(agent, await agent.go(authUrl), 'reader@example.com');
      const callback = new URL(back.url);
      assert.equal(callback.searchParams.get('state'), state);
      const response = await stack.post('/oauth/token', {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: reports.redirectUri,
        code_verifier: verifier,
        client_id: reports.clientId,
        client_secret: reports.secret,
      });
      assert.equal(response.status, 200);
      const idToken = response.json.id_token as string;
      assert.equal(decodeJwt(idToken).aud, reports.clientId);
      assert.equal(await mcpStatus(idToken), 401);
      assert.equal(await mcpStatus(response.json.access_token as string), 200);
    });

    it("refuses the library's own ID token when it was not minted as a bearer (no azp)", async () => {
      const plain = await mintIdToken({
        key: stack.broker.trust.key,
        issuer: stack.issuer,
        clientId: library.clientId,
        identity: { subject: 's', email: 'reader@example.com', groups: [], hostedDomain: 'example.com' },
        ttlSeconds: 600,
      });
      assert.equal(await mcpStatus(plain), 401);
    });

    it('refuses an id_token the upstream IdP issued to a client of the same name', async () => {
      const configuration = await oidc.discovery(
        new URL(stack.idp.issuer),
        library.clientId,
        { redirect_uris: [idpRedirect] },
        oidc.ClientSecretBasic('idp-side-secret'),
        { execute: [oidc.allowInsecureRequests] },
      );
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: idpRedirect,
        scope: 'openid email',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const agent = new UserAgent();
      agent.stopAt = idpRedirect;
      const back = await stack.signInFrom(agent, await agent.go(url.href), 'reader@example.com');
      const tokens = await oidc.authorizationCodeGrant(configuration, new URL(back.url), {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      const upstream = tokens.id_token!;
      const claims = decodeJwt(upstream);
      assert.equal(claims.iss, stack.idp.issuer);
      assert.equal(claims.aud, library.clientId);
      assert.equal(claims.email, 'reader@example.com');
      assert.equal(await mcpStatus(upstream), 401);
    });

    it('refuses an expired id_token, a tampered one, and one outside oidc.allowDomains', async () => {
      const mint = (overrides: { now?: () => Date; hostedDomain?: string } = {}) =>
        mintIdToken({
          key: stack.broker.trust.key,
          issuer: stack.issuer,
          clientId: library.clientId,
          identity: {
            subject: 's',
            email: 'reader@example.com',
            groups: [],
            hostedDomain: overrides.hostedDomain ?? 'example.com',
          },
          ttlSeconds: 600,
          bearerFor: { scope: 'mark.read' },
          ...(overrides.now ? { now: overrides.now } : {}),
        });
      assert.equal(await mcpStatus(await mint()), 200, 'the control: a well-formed bearer id_token passes');
      assert.equal(await mcpStatus(await mint({ now: () => new Date(Date.now() - 3_600_000) })), 401);
      const good = await mint();
      const tampered = `${good.slice(0, -4)}${good.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
      assert.equal(await mcpStatus(tampered), 401);
      assert.equal(await mcpStatus(await mint({ hostedDomain: 'elsewhere.test' })), 401);
    });
  });
});
