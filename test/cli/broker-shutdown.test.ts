/**
 * `demarkus-broker broker` stopped the way Kubernetes stops it (SIGTERM), as a real
 * process: readiness fails at once, a request already in flight still gets its
 * answer, the process exits 0; a second signal ends it at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generateSigningKeyPem, loadSigningKey } from '../../src/broker/auth/signing-key.ts';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { blackHole, type BlackHole } from '../support/black-hole.ts';
import { freePorts, resultText } from '../e2e/stack-fixture.ts';
import { binPath } from './cli-process.ts';

type Broker = {
  child: ChildProcess;
  exited: Promise<number | null>;
  issuer: string;
  management: string;
  mcp: URL;
  key: string;
};

async function startBrokerProcess(dir: string, hole: BlackHole, shutdown: Record<string, string>): Promise<Broker> {
  const [issuer, mcp, management] = (await freePorts(3)) as [number, number, number];
  const key = generateSigningKeyPem();
  const file = join(dir, `broker-${issuer}.yaml`);
  await writeFile(join(dir, 'tokens.toml'), '[tokens]\n');
  await writeFile(
    file,
    stringify({
      server: {
        addr: `127.0.0.1:${issuer}`,
        publicURL: `http://127.0.0.1:${issuer}`,
        mcp: { addr: `127.0.0.1:${mcp}`, publicURL: `http://127.0.0.1:${mcp}` },
        management: { addr: `127.0.0.1:${management}` },
        shutdown,
      },
      oidc: { brokerSigningKey: key },
      storage: { backend: 'file', dir: join(dir, `state-${issuer}`) },
      // A world whose address takes every datagram and answers none: a call to it is in flight
      // until the dial timeout, then answered with a tool error.
      worlds: [
        {
          name: 'gone',
          internalAddress: `localhost:${hole.port}`,
          tokensFile: join(dir, 'tokens.toml'),
          defaultToken: { paths: ['/**'] },
        },
      ],
      worldDialer: { insecureSkipVerify: true, dialTimeout: '3s' },
    }),
  );
  const child = spawn(process.execPath, [binPath, 'broker', '--config', file], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-10_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${management}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`broker exited (${child.exitCode}):\n${stderr}`);
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    exited,
    issuer: `http://127.0.0.1:${issuer}`,
    management: base,
    mcp: new URL(`http://127.0.0.1:${mcp}/mcp`),
    key,
  };
}

/** Polls /readyz until it answers 503, and returns the body. */
async function untilNotReady(broker: Broker): Promise<string> {
  for (;;) {
    const response = await fetch(`${broker.management}/readyz`).catch(() => null);
    if (response?.status === 503) return response.text();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('demarkus-broker broker on SIGTERM (spawned)', () => {
  let dir: string;
  let hole: BlackHole;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-shutdown-'));
    hole = await blackHole();
  });
  after(async () => {
    hole.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 503 on /readyz at once, finishes the call in flight, then exits 0', async () => {
    const broker = await startBrokerProcess(dir, hole, { drainDelay: '1s', timeout: '60s' });
    const client = new Client({ name: 'shutdown-test', version: '1.0.0' });
    try {
      const token = await mintBrokerToken({
        key: loadSigningKey(broker.key),
        issuer: broker.issuer,
        audience: broker.mcp.href,
        email: 'paula@example.com',
        ttlSeconds: 600,
      });
      await client.connect(
        new StreamableHTTPClientTransport(broker.mcp, {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      const dialsBefore = hole.dials();
      const call = client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://gone/index.md' } });
      // The call is in flight once the broker dials the world.
      while (hole.dials() === dialsBefore) await new Promise((resolve) => setTimeout(resolve, 20));
      broker.child.kill('SIGTERM');
      assert.match(await untilNotReady(broker), /^not ready: draining\n/);
      // An answer (the world's failure, as a tool error), not a connection cut under the client.
      const result = await call;
      assert.equal(result.isError, true);
      assert.match(resultText(result), /gone/);
      assert.equal(await broker.exited, 0);
    } finally {
      await client.close().catch(() => undefined);
      broker.child.kill('SIGKILL');
    }
  });

  it('exits at once on a second signal during the drain', async () => {
    const broker = await startBrokerProcess(dir, hole, { drainDelay: '10m', timeout: '60s' });
    try {
      broker.child.kill('SIGTERM');
      await untilNotReady(broker);
      broker.child.kill('SIGTERM');
      assert.equal(await broker.exited, 143);
    } finally {
      broker.child.kill('SIGKILL');
    }
  });
});
