import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RefreshTokens } from '../../../src/broker/auth/tokens/refresh-tokens.ts';
import { FileStateStore, MemoryStateStore, type StateDocumentStore } from '../../../src/broker/state/index.ts';

const grant = {
  clientId: 'app',
  identity: { subject: 's1', email: 'a@example.com', groups: ['g'], hostedDomain: 'example.com' },
  scope: 'mark.read',
  resource: 'https://mcp.example/mcp',
};

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** One contract, two backends: a difference between them is a bug in one. */
const backends: Array<[string, () => Promise<StateDocumentStore>]> = [
  ['memory', async () => new MemoryStateStore()],
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'demarkus-state-'));
      dirs.push(dir);
      return new FileStateStore(join(dir, 'state'));
    },
  ],
];

for (const [name, makeStore] of backends) {
  describe(`refresh tokens (RFC 9700 §4.14) on the ${name} backend`, () => {
    const setup = async (options: { maxFamilies?: number } = {}) => {
      let now = 1_000_000;
      const store = await makeStore();
      const tokens = new RefreshTokens(store, { ttlMs: 60_000, now: () => now, ...options });
      return { store, tokens, advance: (ms: number) => (now += ms) };
    };

    it('rotates on every use: the successor works, the grant comes back unchanged', async () => {
      const { tokens } = await setup();
      const { token } = await tokens.issue(grant);
      const first = await tokens.rotate(token, 'app');
      assert.equal(first.kind, 'rotated');
      if (first.kind !== 'rotated') return;
      assert.notEqual(first.token, token);
      assert.deepEqual(first.grant, grant);
      assert.equal((await tokens.rotate(first.token, 'app')).kind, 'rotated');
    });

    it('revokes the whole family when a rotated-away token is presented again', async () => {
      const { tokens } = await setup();
      const { token } = await tokens.issue(grant);
      const next = await tokens.rotate(token, 'app');
      assert.equal((await tokens.rotate(token, 'app')).kind, 'reused');
      assert.deepEqual(await tokens.rotate((next as { token: string }).token, 'app'), {
        kind: 'invalid',
        reason: 'unknown',
      });
    });

    it('refuses another client without revoking the owner', async () => {
      const { tokens } = await setup();
      const { token } = await tokens.issue(grant);
      assert.deepEqual(await tokens.rotate(token, 'thief'), { kind: 'invalid', reason: 'other-client' });
      assert.equal((await tokens.rotate(token, 'app')).kind, 'rotated');
    });

    it('expires a family left unused for its lifetime, and a use renews the lifetime', async () => {
      const { tokens, advance } = await setup();
      const a = await tokens.issue(grant);
      const b = await tokens.issue(grant);
      advance(50_000);
      const renewed = await tokens.rotate(b.token, 'app');
      advance(20_000);
      assert.deepEqual(await tokens.rotate(a.token, 'app'), { kind: 'invalid', reason: 'expired' });
      assert.equal((await tokens.rotate((renewed as { token: string }).token, 'app')).kind, 'rotated');
    });

    it('sweeps expired families and drops the oldest when full', async () => {
      const { tokens, advance } = await setup({ maxFamilies: 2 });
      const oldest = await tokens.issue(grant);
      advance(1);
      await tokens.issue(grant);
      advance(1);
      await tokens.issue(grant);
      assert.equal(await tokens.familyCount(), 2);
      assert.equal((await tokens.rotate(oldest.token, 'app')).kind, 'invalid');
      advance(120_000);
      assert.equal(await tokens.sweep(), 2);
      assert.equal(await tokens.familyCount(), 0);
    });

    it('sweeps nothing once the leadership signal has aborted (the new leader sweeps)', async () => {
      const { tokens, advance } = await setup();
      await tokens.issue(grant);
      advance(120_000);
      const lost = new AbortController();
      lost.abort();
      assert.equal(await tokens.sweep(lost.signal), 0);
      assert.equal(await tokens.familyCount(), 1);
      assert.equal(await tokens.sweep(new AbortController().signal), 1);
    });

    it('revokes (RFC 7009) only for the owning client', async () => {
      const { tokens } = await setup();
      const { token } = await tokens.issue(grant);
      assert.equal(await tokens.revoke(token, 'someone'), false);
      assert.equal(await tokens.revoke(token, 'app'), true);
      assert.equal((await tokens.rotate(token, 'app')).kind, 'invalid');
    });

    it('never stores a raw token', async () => {
      const { tokens, store } = await setup();
      const { token } = await tokens.issue(grant);
      const rotated = await tokens.rotate(token, 'app');
      const bytes = (await store.read('refresh_tokens.json'))!.toString();
      assert.ok(!bytes.includes(token) && !bytes.includes((rotated as { token: string }).token));
    });
  });
}

describe('file state backend', () => {
  it('writes documents 0600 and reads them back after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-state-'));
    dirs.push(dir);
    const first = new RefreshTokens(new FileStateStore(dir), { ttlMs: 60_000 });
    const { token } = await first.issue(grant);
    assert.equal((await stat(join(dir, 'refresh_tokens.json'))).mode & 0o777, 0o600);
    const restarted = new RefreshTokens(new FileStateStore(dir), { ttlMs: 60_000 });
    assert.equal((await restarted.rotate(token, 'app')).kind, 'rotated');
    assert.ok(JSON.parse(await readFile(join(dir, 'refresh_tokens.json'), 'utf8')).families);
  });

  it('refuses document names that could leave the directory', () => {
    assert.throws(() => new FileStateStore('/tmp/x').pathOf('../etc/passwd'), RangeError);
  });
});
