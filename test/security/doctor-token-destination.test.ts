/**
 * Threat: `demarkus-broker doctor` hands the access token that `login` kept to
 * whatever listens on npm start's port. docs/knowledge.md told people to run
 * `doctor --token "$(demarkus-broker whoami --access-token)"`, and doctor sends
 * an explicit token to `http://127.0.0.1:8081/mcp` when no `--url` is given, so
 * a token issued for any broker (production too) went over plain http to the
 * program on that port. The 2026-12-06 decision (docs/decisions.md) fixed this
 * for `search` only.
 *
 * The attack succeeded before the fix (checked by hand with a listener on
 * 8081, which logged `Bearer <the kept token>`; and by running this file
 * against it: doctor without --token refused to run, so the documented way
 * was the whoami pipe). Now doctor without --token uses the kept sign-in as
 * search does (src/cli/broker-target.ts): its token goes only to the broker
 * in its `aud`, and the documented command has no pipe.
 *
 * The real CLI (a spawned `demarkus-broker doctor`) over a credentials file as
 * `login` writes it, and sink HTTP servers that record every request.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devBrokerMcpUrl } from '../../src/cli/broker-destination.ts';
import { runCli } from '../cli/cli-process.ts';
import { brokerTokenFor, keptSignInEnv, writeKeptSignIn } from '../cli/kept-sign-in.ts';
import { startTokenSink, type TokenSink } from '../cli/token-sink.ts';

/** The stranger on npm start's MCP port; undefined when something else (an npm start) already listens there. */
async function defaultPortSink(): Promise<TokenSink | undefined> {
  return startTokenSink({ port: Number(new URL(devBrokerMcpUrl).port) }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') return undefined;
    throw error;
  });
}

describe('doctor sends the kept sign-in token only to the broker it is for', () => {
  let dir: string;
  let broker: TokenSink;
  let stranger: TokenSink | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-doctor-destination-'));
    broker = await startTokenSink();
    stranger = await defaultPortSink();
  });
  after(async () => {
    broker.server.close();
    stranger?.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A credentials file as `login` writes it, signed in with `accessToken`. */
  const signedIn = (accessToken: string) =>
    writeKeptSignIn(dir, { issuer: 'https://broker.corp.example', accessToken });

  const doctor = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runCli(['doctor', ...args], { env: keptSignInEnv(dir, env) });

  it('without --token sends the kept token to the broker in its aud, and nothing to the default port', async () => {
    const kept = await brokerTokenFor(broker.url);
    await signedIn(kept);
    const run = await doctor([]);
    assert.equal(run.code, 1, 'the sink refuses the call');
    assert.ok(broker.requests.length > 0, run.stderr);
    assert.ok(
      broker.requests.every((request) => request.headers.authorization === `Bearer ${kept}`),
      'every request carried the kept token, to the broker it is for',
    );
    if (stranger !== undefined) assert.deepEqual(stranger.requests, [], 'nothing reached the default port');
    broker.requests.length = 0;
  });

  it('refuses to send the kept token to the default port named as --url, and says to pass --token', async () => {
    await signedIn(await brokerTokenFor(broker.url));
    const run = await doctor(['--url', devBrokerMcpUrl]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /is not where the kept sign-in may go/);
    assert.match(run.stderr, /--token/);
    assert.deepEqual(broker.requests, []);
    if (stranger !== undefined) assert.deepEqual(stranger.requests, []);
  });
});
