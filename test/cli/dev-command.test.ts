import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binPath } from './cli-process.ts';

/** A first port of `count` consecutive ones free for `kind` on loopback (QUIC worlds take UDP, the broker TCP). */
async function consecutiveFreePorts(kind: 'tcp' | 'udp', count: number, avoid: number[] = []): Promise<number> {
  for (;;) {
    const first = 20_000 + Math.floor(Math.random() * 40_000);
    const ports = Array.from({ length: count }, (_, i) => first + i);
    if (ports.some((port) => avoid.includes(port))) continue;
    if ((await Promise.all(ports.map((port) => isFree(kind, port)))).every(Boolean)) return first;
  }
}

function isFree(kind: 'tcp' | 'udp', port: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (kind === 'udp') {
      const socket = createSocket('udp4');
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
      return;
    }
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `npm start`'s banner: the stack's stdout up to "Press Ctrl-C to stop.", with the child to stop. */
function startDev(args: string[]): Promise<{ child: ChildProcess; banner: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, 'dev', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('Press Ctrl-C to stop.')) resolve({ child, banner: stdout, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`dev exited with ${code} before its banner:\n${stderr}`)));
  });
}

describe('demarkus-broker dev (npm start), spawned', () => {
  let dir: string;
  let dev: Awaited<ReturnType<typeof startDev>>;
  let brokerPort: number;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-dev-'));
    const worldPort = await consecutiveFreePorts('udp', 3);
    // The issuer, MCP, the development IdP and the management listener.
    brokerPort = await consecutiveFreePorts('tcp', 4, [worldPort, worldPort + 1, worldPort + 2]);
    dev = await startDev([
      '--data',
      join(dir, 'data'),
      '--port',
      String(worldPort),
      '--broker-port',
      String(brokerPort),
      '--email',
      'paula@example.com',
    ]);
  });
  after(async () => {
    const exited = new Promise((resolve) => dev?.child.once('exit', resolve));
    dev?.child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  });

  it('names the identity of the printed MCP token, the one --email gave', () => {
    assert.match(dev.banner, /^Connect an MCP client \(development token for paula@example\.com, valid 12 hours\):$/m);
    assert.doesNotMatch(dev.banner, /dev@example\.com/);
  });

  it('prints the management listener (the port after the IdP), which answers /readyz where the issuer does not', async () => {
    const health = `http://127.0.0.1:${brokerPort + 3}`;
    assert.match(
      dev.banner,
      new RegExp(`^  broker health: +${health.replaceAll('.', '\\.')}/readyz \\(metrics at /metrics\\)$`, 'm'),
    );
    const ready = await fetch(`${health}/readyz`);
    assert.equal(ready.status, 200);
    assert.match(await ready.text(), /^ready\n/);
    assert.equal((await fetch(`http://127.0.0.1:${brokerPort}/readyz`)).status, 404);
  });
});
