import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDevCertificate } from '../../src/transport/index.ts';
import { hookStartSignal, runCli, startWorldProcess, type WorldProcess } from './cli-process.ts';

/** `demarkus-broker world`, `world token` and `mark`, driven as a user would: separate processes. */
describe('world server and mark client as processes', () => {
  let dir: string;
  let world: WorldProcess;
  let url: (path: string) => string;
  let token: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-cli-'));
    const minted = await runCli(['world', 'token', '--label', 'ci', '--paths', '/**', '--ops', 'publish']);
    assert.equal(minted.code, 0, minted.stderr);
    token = /^token: ([0-9a-f]{64})$/m.exec(minted.stdout)![1]!;
    await writeFile(join(dir, 'tokens.toml'), minted.stdout.slice(minted.stdout.indexOf('[tokens.')));
    world = await startWorldProcess(
      ['--root', join(dir, 'root'), '--tokens', join(dir, 'tokens.toml'), '--listen', '127.0.0.1:0'],
      { signal: hookStartSignal() },
    );
    url = (path) => `mark://127.0.0.1:${world.port}${path}`;
  });
  after(async () => {
    world?.child.kill('SIGTERM');
    await world?.exited;
    await rm(dir, { recursive: true, force: true });
  });

  it('says it is serving a self-signed development certificate', () => {
    assert.match(world.stderr(), /self-signed development certificate/);
  });

  it('answers FETCH /health and exits 0', async () => {
    const result = await runCli(['mark', 'fetch', url('/health'), '--insecure']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^status: ok\n/);
    assert.match(result.stdout, /Server is healthy/);
  });

  it('publishes with the minted token, then fetches, lists and looks the document up', async () => {
    const published = await runCli(
      [
        'mark',
        'publish',
        url('/notes/a.md'),
        '--insecure',
        '--token',
        token,
        '--meta',
        'tags=cli,test',
        '--body-file',
        '-',
        '--expected-version',
        '0',
      ],
      { input: '# CLI note\n\nHello from a pipe.\n' },
    );
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stdout, /status: created\nmodified: .*\nversion: 1\n/);
    const fetched = await runCli(['mark', 'fetch', url('/notes/a.md'), '--insecure']);
    assert.match(fetched.stdout, /tags: cli,test/);
    assert.match(fetched.stdout, /\n\n# CLI note\n\nHello from a pipe\.\n$/);
    const listed = await runCli(['mark', 'list', url('/notes'), '--insecure']);
    assert.match(listed.stdout, /\[a\.md\]\(a\.md\)/);
    const found = await runCli(['mark', 'lookup', url('/'), '--insecure', '--query', 'cli']);
    assert.match(found.stdout, /matches: 1/);
  });

  it('exits 3 when the document came without the #anchor asked for, and prints the section when it is there', async () => {
    const missing = await runCli(['mark', 'fetch', url('/notes/a.md#no-such-part'), '--insecure']);
    assert.equal(missing.code, 3, missing.stderr);
    assert.equal(missing.stdout, '');
    assert.equal(missing.stderr, 'demarkus-broker mark: no section with anchor #no-such-part in /notes/a.md\n');
    const found = await runCli(['mark', 'fetch', url('/notes/a.md#cli-note'), '--insecure']);
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /\n\n# CLI note\n/);
  });

  it('prints exact wire bytes with --raw', async () => {
    const raw = await runCli(['mark', 'fetch', url('/missing.md'), '--insecure', '--raw']);
    assert.equal(raw.stdout, '---\nstatus: not-found\n---\n\n# Not found\n\n/missing.md not found\n');
    assert.equal(raw.code, 3);
  });

  it('picks up a token added to tokens.toml without a restart', async () => {
    const minted = await runCli(['world', 'token', '--label', 'late', '--paths', '/late/*', '--ops', 'publish']);
    const lateToken = /^token: ([0-9a-f]{64})$/m.exec(minted.stdout)![1]!;
    await appendFile(join(dir, 'tokens.toml'), `\n${minted.stdout.slice(minted.stdout.indexOf('[tokens.'))}`);
    let status = '';
    for (let attempt = 0; attempt < 50 && status !== 'created'; attempt++) {
      const result = await runCli([
        'mark',
        'publish',
        url('/late/x.md'),
        '--insecure',
        '--token',
        lateToken,
        '--body',
        '# Late\n',
      ]);
      status = /^status: (\S+)/.exec(result.stdout)?.[1] ?? '';
      if (status !== 'created') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 'created');
  });

  it('refuses a certificate it cannot verify unless --insecure is given', async () => {
    const result = await runCli(['mark', 'fetch', `mark://localhost:${world.port}/health`]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /demarkus-broker mark: /);
  });

  it('explains usage errors in one line with exit code 2', async () => {
    const noVerb = await runCli(['mark', 'delete', url('/a.md')]);
    assert.equal(noVerb.code, 2);
    assert.match(noVerb.stderr, /expected <verb> <mark-url>/);
    const badUrl = await runCli(['mark', 'fetch', 'https://example.com/a.md']);
    assert.equal(badUrl.code, 2, badUrl.stderr);
    assert.equal(
      badUrl.stderr,
      'demarkus-broker mark: not a mark:// URL: https://example.com/a.md\nRun `demarkus-broker mark --help`.\n',
    );
    const noRoot = await runCli(['world']);
    assert.equal(noRoot.code, 2);
    assert.match(noRoot.stderr, /--root is required/);
    const badOps = await runCli(['world', 'token', '--label', 'x', '--paths', '/**', '--ops', 'delete']);
    assert.equal(badOps.code, 2);
    assert.match(badOps.stderr, /unknown operation "delete"/);
  });

  it('refuses a --listen of digits only and names the flag of a TLS file it cannot read', async () => {
    const root = join(dir, 'refused');
    const portOnly = await runCli(['world', '--root', root, '--listen', '6309']);
    assert.equal(portOnly.code, 2, portOnly.stderr);
    assert.match(
      portOnly.stderr,
      /^demarkus-broker world: --listen must be HOST:PORT, e\.g\. `\[::\]:6309` or `:6309`, got "6309"\n/,
    );
    const missing = join(dir, 'no-such.pem');
    const noKey = await runCli(['world', '--root', root, '--tls-cert', missing, '--tls-key', missing]);
    assert.equal(noKey.code, 2, noKey.stderr);
    assert.equal(
      noKey.stderr.split('\n')[0],
      `demarkus-broker world: --tls-cert: cannot read TLS certificate file ${missing} (ENOENT)`,
    );
  });

  it('refuses a --tls-key that does not belong to --tls-cert before listening', async () => {
    const [pair, other] = await Promise.all([generateDevCertificate(), generateDevCertificate()]);
    await writeFile(join(dir, 'cert.pem'), pair.cert);
    await writeFile(join(dir, 'other-key.pem'), other.key);
    const refused = await runCli([
      'world',
      '--root',
      join(dir, 'refused'),
      '--listen',
      '127.0.0.1:0',
      '--tls-cert',
      join(dir, 'cert.pem'),
      '--tls-key',
      join(dir, 'other-key.pem'),
    ]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(
      refused.stderr.split('\n')[0],
      'demarkus-broker world: --tls-key: TLS key does not match the certificate',
    );
  });

  it('stops cleanly on SIGTERM', async (t) => {
    const second = await startWorldProcess(['--root', join(dir, 'root2'), '--listen', '127.0.0.1:0'], {
      signal: t.signal,
    });
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });
});
