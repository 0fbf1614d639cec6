/**
 * `doctor --token X` (and `search`) without `--url` or DEMARKUS_BROKER_URL go
 * to npm start's broker, the documented default for an explicit token
 * (src/cli/broker-target.ts; docs/decisions.md 2026-12-07). A person who
 * meant another broker learns it from the failure: every failure of a call
 * sent to that default says the URL was the default and how to name another.
 *
 * The real CLI, spawned; npm start's port holds a sink answering 401 when the
 * port is free, else whatever listens there (an npm start refuses token "X"
 * too), and a call to a URL given explicitly goes to a sink on a free port.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devBrokerMcpUrl } from '../../src/cli/broker-destination.ts';
import { runCli } from './cli-process.ts';
import { keptSignInEnv } from './kept-sign-in.ts';
import { startTokenSink, type TokenSink } from './token-sink.ts';

const defaultNote = /no --url or DEMARKUS_BROKER_URL was given, so --token went to npm start's broker/;

describe('an explicit token without --url goes to npm start broker, and a failure says so', () => {
  let dir: string;
  let named: TokenSink;
  let onDefaultPort: TokenSink | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-default-url-'));
    named = await startTokenSink();
    onDefaultPort = await startTokenSink({ port: Number(new URL(devBrokerMcpUrl).port) }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EADDRINUSE') return undefined;
        throw error;
      },
    );
  });
  after(async () => {
    named.server.close();
    onDefaultPort?.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const command of [['doctor'], ['search', 'query']]) {
    it(`${command[0]}: a failed call to the default names it as the default`, async () => {
      const run = await runCli([...command, '--token', 'X'], { env: keptSignInEnv(dir) });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, defaultNote);
      assert.ok(run.stderr.includes(devBrokerMcpUrl), run.stderr);
      if (onDefaultPort !== undefined)
        assert.ok(onDefaultPort.requests.length > 0, 'the call went to the default port');
    });

    it(`${command[0]}: a failed call to a URL given says nothing of the default`, async () => {
      const run = await runCli([...command, '--token', 'X'], {
        env: keptSignInEnv(dir, { DEMARKUS_BROKER_URL: named.url }),
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /the broker refused the token \(HTTP 401/);
      assert.doesNotMatch(run.stderr, defaultNote);
    });
  }
});
