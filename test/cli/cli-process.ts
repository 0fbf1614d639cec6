import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const binPath = fileURLToPath(new URL('../../bin/demarkus-broker.js', import.meta.url));

export type RunResult = { code: number | null; stdout: string; stderr: string };

/** Runs the CLI to completion with the test's own Node (24). */
export function runCli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export type WorldProcess = { child: ChildProcess; port: number; stderr: () => string; exited: Promise<number | null> };

/**
 * Starts `demarkus-broker world` and waits for its "world listening" log line to learn the port.
 * `onSpawn` sees the child at once, before it listens (bench/lib/scratch.ts stops it if the bench is interrupted).
 */
export function startWorldProcess(
  args: string[],
  startTimeoutMs = 30_000,
  onSpawn?: (child: ChildProcess) => void,
): Promise<WorldProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, 'world', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    onSpawn?.(child);
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`world did not start:\n${stderr}`));
    }, startTimeoutMs);
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      const line = stderr.split('\n').find((l) => l.includes('"world listening"'));
      if (line) {
        clearTimeout(timer);
        const port = Number(String(JSON.parse(line).listen).split(':').pop());
        resolve({ child, port, stderr: () => stderr, exited });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`world exited with ${code} before listening:\n${stderr}`));
    });
  });
}
