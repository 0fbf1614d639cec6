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

/**
 * The signal for a start in a `before` hook: node:test (Node 24) does not abort a hook's
 * `t.signal` when the hook or its suite times out (checked 2026-12-07), so a hook bounds the
 * wait itself, by the --test-timeout npm test gives every test (package.json).
 */
export const hookStartSignal = (): AbortSignal => AbortSignal.timeout(120_000);

export type WorldProcess = { child: ChildProcess; port: number; stderr: () => string; exited: Promise<number | null> };

/**
 * Starts `demarkus-broker world` and waits for its "world listening" log line to learn the port,
 * for as long as the test lets it: `signal` (a test's `t.signal`, or `hookStartSignal()`) stops the wait
 * and the child, so a loaded machine that takes long to start Node is not cut short by a deadline
 * of ours. Once listening, the child outlives the signal (a test's signal aborts when it ends).
 * `onSpawn` sees the child at once, before it listens (bench/lib/scratch.ts stops it if the bench is interrupted).
 */
export function startWorldProcess(
  args: string[],
  options: { signal?: AbortSignal; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<WorldProcess> {
  return new Promise((resolve, reject) => {
    const { signal, onSpawn } = options;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const child = spawn(process.execPath, [binPath, 'world', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    onSpawn?.(child);
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const stopWaiting = () => {
      child.kill('SIGKILL');
      reject(new Error(`world did not start before the test ended (${String(signal?.reason)}):\n${stderr}`));
    };
    signal?.addEventListener('abort', stopWaiting, { once: true });
    const started = (port: number) => {
      signal?.removeEventListener('abort', stopWaiting);
      resolve({ child, port, stderr: () => stderr, exited });
    };
    let listening = false;
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      if (listening) return;
      // Whole lines only: a chunk may end inside the JSON of the line looked for.
      const line = stderr
        .split('\n')
        .slice(0, -1)
        .find((l) => l.includes('"world listening"'));
      if (line === undefined) return;
      listening = true;
      started(Number(String(JSON.parse(line).listen).split(':').pop()));
    });
    child.on('exit', (code) => {
      signal?.removeEventListener('abort', stopWaiting);
      reject(new Error(`world exited with ${code} before listening:\n${stderr}`));
    });
  });
}
