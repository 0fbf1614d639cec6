/**
 * Threat: `demarkus-broker search` hands the access token that `login` kept to
 * a server it was never issued for. The token belongs to the broker the user
 * signed in to (its `aud` is that broker's MCP resource, RFC 8707), but search
 * sent it to `--url`, to `DEMARKUS_BROKER_URL`, or by default to
 * `http://127.0.0.1:8081/mcp`, whoever listens there, and over plain http to
 * any host. Someone signed in to a production broker who ran `search` with a
 * mistyped or planted URL gave the token away, in cleartext if the URL was
 * `http://`.
 *
 * Every attack below succeeded before the fix (checked by running this file
 * against it): the sink logged `authorization: Bearer <the kept token>` for
 * --url, for DEMARKUS_BROKER_URL and for an explicit token sent over plain
 * http to a host that is not this computer; and with no URL at all, search
 * went to port 8081 instead of the broker the token is for.
 *
 * The real CLI (a spawned `demarkus-broker search`) over a credentials file
 * as `login` writes it, and a sink HTTP server that records every request.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/cli-process.ts';
import { brokerTokenFor, keptSignInEnv, readKeptSignIn, writeKeptSignIn } from '../cli/kept-sign-in.ts';
import { startTokenSink, type TokenSink } from '../cli/token-sink.ts';

describe('search sends the kept sign-in token only to the broker it is for, and never in cleartext off this computer', () => {
  let dir: string;
  let sink: TokenSink;
  let remoteSink: TokenSink;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-token-destination-'));
    sink = await startTokenSink();
    // 127.0.0.2 is this computer too, but not a name the CLI counts as loopback: it stands for a host elsewhere.
    remoteSink = await startTokenSink({ host: '127.0.0.2' });
  });
  after(async () => {
    sink.server.close();
    remoteSink.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A credentials file as `login` writes it, signed in to `issuer` with `accessToken`. */
  const signedIn = (issuer: string, accessToken: string) => writeKeptSignIn(dir, { issuer, accessToken });

  const search = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runCli(['search', 'refresh tokens', ...args], { env: keptSignInEnv(dir, env) });

  it('refuses to send a production sign-in to another --url, and says to pass --token', async () => {
    await signedIn('https://broker.corp.example', await brokerTokenFor('https://broker.corp.example/mcp'));
    const run = await search(['--url', sink.url]);
    assert.deepEqual(sink.requests, [], 'the token never left');
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /is for https:\/\/broker\.corp\.example\/mcp/);
    assert.match(run.stderr, /--token/);
  });

  it('refuses the same for DEMARKUS_BROKER_URL', async () => {
    await signedIn('https://broker.corp.example', await brokerTokenFor('https://broker.corp.example/mcp'));
    const run = await search([], { DEMARKUS_BROKER_URL: sink.url });
    assert.deepEqual(sink.requests, []);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /DEMARKUS_BROKER_URL/);
  });

  it('with no URL, sends the kept token to the broker it is for (its audience), not to a fixed local port', async () => {
    await signedIn('http://127.0.0.1:1', await brokerTokenFor(sink.url));
    const run = await search([]);
    assert.equal(run.code, 1, 'the sink refuses the call');
    assert.equal(sink.requests.length > 0, true, run.stderr);
    assert.equal(sink.requests[0]!.headers.authorization, `Bearer ${await tokenOf()}`);
    sink.requests.length = 0;
  });

  it('refuses plain http to a host other than this computer, for an explicit token too', async () => {
    const explicit = await search(['--url', remoteSink.url, '--token', 'AT-EXPLICIT']);
    assert.equal(explicit.code, 2, explicit.stderr);
    assert.match(explicit.stderr, /must use https \(plain http only for a broker on this computer/);
    await signedIn('http://127.0.0.2:1', await brokerTokenFor(remoteSink.url));
    const kept = await search([]);
    assert.equal(kept.code, 2, kept.stderr);
    assert.deepEqual(remoteSink.requests, [], 'no token crossed the network in cleartext');
  });

  it('refuses a kept token that names no broker, instead of guessing where to send it', async () => {
    await signedIn('http://127.0.0.1:1', 'AT-SECRET');
    const run = await search([]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /names no broker/);
    assert.match(run.stderr, /demarkus-broker login/);
  });

  /** The access token of the credentials file written last. */
  const tokenOf = async () => (await readKeptSignIn(dir)).accessToken;
});
