import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MarkClient } from '../../src/transport/mark-client.ts';
import { generateToken, hashToken } from '../../src/protocol/token.ts';
import { startWorldProcess } from './cli-process.ts';

/**
 * Kills a world process with SIGKILL in the middle of a stream of PUBLISH and
 * APPEND over QUIC, restarts it on the same root, and checks what a client was
 * promised: every acknowledged write is there with its exact content, every
 * chain verifies, and writing goes on.
 */
describe('world crash safety (SIGKILL mid-write, as a process over QUIC)', () => {
  it('keeps every acknowledged write and a valid chain across three kills', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-crash-'));
    const token = generateToken();
    await writeFile(
      join(dir, 'tokens.toml'),
      `[tokens.crash]\nhash = "${hashToken(token)}"\npaths = ["/**"]\noperations = ["publish"]\n`,
    );
    const args = [
      '--root',
      join(dir, 'root'),
      '--tokens',
      join(dir, 'tokens.toml'),
      '--listen',
      '127.0.0.1:0',
      '--rate-limit',
      '0',
    ];
    const acked = new Map<string, Map<number, string>>();
    const client = new MarkClient({ insecureSkipVerify: true, requestTimeoutMs: 2000, maxAttempts: 1 });
    try {
      for (let round = 0; round < 3; round++) {
        const world = await startWorldProcess(args, { signal: t.signal });
        const authority = { host: '127.0.0.1', port: world.port };
        const writer = (async () => {
          for (let i = 0; ; i++) {
            const path = `/crash/doc-${i % 4}.md`;
            const versions = acked.get(path) ?? new Map<number, string>();
            acked.set(path, versions);
            const current = Math.max(0, ...versions.keys());
            try {
              const response =
                current === 0
                  ? await client.call(authority, {
                      verb: 'PUBLISH',
                      path,
                      metadata: { auth: token, 'expected-version': '0' },
                      body: `# Doc ${i}\n`,
                    })
                  : await client.call(authority, {
                      verb: 'APPEND',
                      path,
                      metadata: { auth: token, 'expected-version': String(current) },
                      body: `line ${round}-${i}\n`,
                    });
              if (response.status === 'created') {
                const fetched = await client.call(authority, {
                  verb: 'FETCH',
                  path: `${path}/v${response.metadata.version}`,
                });
                versions.set(Number(response.metadata.version), fetched.metadata['content-hash'] ?? '');
              } else if (response.status === 'conflict') {
                versions.set(Number(response.metadata['server-version']), '');
              }
            } catch {
              return;
            }
          }
        })();
        await new Promise((r) => setTimeout(r, 300 + round * 250));
        world.child.kill('SIGKILL');
        await world.exited;
        await writer;
      }
      const world = await startWorldProcess(args, { signal: t.signal });
      const authority = { host: '127.0.0.1', port: world.port };
      try {
        let checked = 0;
        for (const [path, versions] of acked) {
          const history = await client.call(authority, { verb: 'VERSIONS', path });
          if (versions.size === 0) continue;
          assert.equal(history.metadata['chain-valid'], 'true', `${path} chain`);
          for (const [version, hash] of versions) {
            const fetched = await client.call(authority, { verb: 'FETCH', path: `${path}/v${version}` });
            assert.equal(fetched.status, 'ok', `${path}/v${version} acknowledged but missing`);
            if (hash !== '') assert.equal(fetched.metadata['content-hash'], hash);
            checked++;
          }
        }
        assert.ok(checked > 0, 'some writes were acknowledged before the kills');
        const next = await client.call(authority, {
          verb: 'PUBLISH',
          path: '/crash/after.md',
          metadata: { auth: token },
          body: '# After\n',
        });
        assert.equal(next.status, 'created');
      } finally {
        world.child.kill('SIGTERM');
        await world.exited;
      }
    } finally {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
