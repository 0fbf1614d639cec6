/**
 * A real `redis-server` (Debian package) for the tests that need shared state:
 * its own temp dir, a free port on 127.0.0.1, no persistence, stopped by the
 * test. `stop()` then `start()` again brings the same server back on the same
 * port, for the tests that take Redis away mid-flight.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type RedisServer = {
  port: number;
  url: string;
  /** Starts the server (again) on the same port. */
  start(): Promise<void>;
  /** Stops it: SIGTERM, SIGKILL after a second. */
  stop(): Promise<void>;
  close(): Promise<void>;
};

export const redisServerBinary = process.env.REDIS_SERVER ?? 'redis-server';

export async function startRedisServer(options: { password?: string } = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'demarkus-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--loglevel',
      'notice',
      ...(options.password === undefined ? [] : ['--requirepass', options.password]),
    ];
    const started = spawn(redisServerBinary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    // Ready only once this server says so: a port probe could reach whoever else holds the port.
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server not ready on ${port}: ${output.trim()}`)), 10_000);
      const listen = (chunk: Buffer) => {
        output += String(chunk);
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      started.stdout?.on('data', listen);
      started.stderr?.on('data', listen);
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${output.trim().slice(-500)}`));
      });
      started.once('error', reject);
    });
    await ready.catch((error) => {
      started.kill('SIGKILL');
      throw error;
    });
    // Keep draining its output so the pipe never fills.
    started.stdout?.resume();
    child = started;
  };
  const start = async () => {
    if (child !== undefined) return;
    for (let attempt = 0; ; attempt++) {
      if (port === 0 || attempt > 0) port = await freePort();
      try {
        await launch();
        return;
      } catch (error) {
        // Another suite may have taken the port between probe and bind; a restart keeps its port.
        if (attempt >= 4) throw error;
      }
    }
  };
  const restart = async () => {
    if (child !== undefined) return;
    await launch();
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const gone = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 1000);
    await gone;
    clearTimeout(timer);
  };
  await start();
  return {
    get port() {
      return port;
    },
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    start: restart,
    stop,
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
