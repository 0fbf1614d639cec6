import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { hashToken } from '../../../src/protocol/token.ts';
import {
  ensureTokenEntry,
  FileTokensSink,
  FileWriteTokenStore,
  formatTokenEntry,
  mintWriteTokenRecord,
  TokensSinkError,
  TokensTomlError,
  WriteTokenConflictError,
  WriteTokenProvisioner,
  WriteTokenStoreError,
  type WorldDefinition,
  type WriteTokenRecord,
} from '../../../src/broker/worlds/index.ts';

const hash = `sha256-${'a'.repeat(64)}`;

describe('tokens.toml entry text (Go FormatEntry)', () => {
  it('is byte-exact for the broker write token', () => {
    assert.equal(
      formatTokenEntry('broker-write-team-a', { hash, paths: ['/**'], operations: ['publish'] }),
      `\n[tokens.broker-write-team-a]\nhash = "${hash}"\npaths = ["/**"]\noperations = ["publish"]\n`,
    );
  });

  it('joins lists with ", ", Go-quotes a label that is not a bare key, and adds expires only when set', () => {
    assert.equal(
      formatTokenEntry('with.dot', {
        hash,
        paths: ['/a/*', '/b "q"'],
        operations: ['publish', 'read'],
        expires: '2026-12-31T23:59:59Z',
      }),
      `\n[tokens."with.dot"]\nhash = "${hash}"\npaths = ["/a/*", "/b \\"q\\""]\noperations = ["publish", "read"]\nexpires = "2026-12-31T23:59:59Z"\n`,
    );
  });
});

describe('editing a tokens.toml for the write token', () => {
  const record = (paths = ['/**']): WriteTokenRecord => mintWriteTokenRecord('team-a', paths);
  const existing =
    '# operators: hand-minted tokens below\n[tokens.alice]\nhash = "sha256-' +
    'b'.repeat(64) +
    '"\npaths = ["/docs/**"]\noperations = ["publish"]\n';

  it('appends the entry after every existing byte', () => {
    const token = record();
    const edit = ensureTokenEntry(existing, token);
    assert.equal(edit.outcome, 'appended');
    assert.equal(
      edit.text,
      existing + formatTokenEntry(token.label, { hash: token.hash, paths: ['/**'], operations: ['publish'] }),
    );
  });

  it('appends to an empty file', () => {
    const token = record();
    assert.equal(
      ensureTokenEntry('', token).text,
      formatTokenEntry(token.label, { hash: token.hash, paths: ['/**'], operations: ['publish'] }),
    );
  });

  it('changes nothing when the label already has this hash', () => {
    const token = record();
    const text = ensureTokenEntry(existing, token).text;
    assert.deepEqual(ensureTokenEntry(text, token), { text, outcome: 'unchanged' });
  });

  it('replaces an entry with this hash but other paths or operations (the world enforces the entry)', () => {
    const token = record();
    const ours = ensureTokenEntry(existing, token).text;
    const entry = ours.slice(existing.length); // our entry is the appended tail
    for (const changed of [
      existing + entry.replace('paths = ["/**"]', 'paths = ["/**", "/other/**"]'),
      existing + entry.replace('operations = ["publish"]', 'operations = ["publish", "read"]'),
    ]) {
      const edit = ensureTokenEntry(changed, token);
      assert.equal(edit.outcome, 'replaced');
      assert.equal(edit.text, ours);
    }
  });

  it('replaces an entry with a stale hash and keeps the rest byte for byte', () => {
    const stale = record();
    const fresh = record();
    const bob = `\n[tokens.bob]\nhash = "sha256-${'c'.repeat(64)}"\npaths = ["/**"]\noperations = ["publish"]\n`;
    const edit = ensureTokenEntry(ensureTokenEntry(existing, stale).text + bob, fresh);
    assert.equal(edit.outcome, 'replaced');
    assert.equal(
      edit.text,
      existing + bob + formatTokenEntry(fresh.label, { hash: fresh.hash, paths: ['/**'], operations: ['publish'] }),
    );
  });

  it('replaces an entry written in another form by re-encoding the document', () => {
    const fresh = record();
    const inline = `[tokens]\nalice = { hash = "sha256-${'b'.repeat(64)}", paths = ["/**"], operations = ["publish"] }\n"broker-write-team-a" = { hash = "${hash}", paths = ["/**"], operations = ["publish"] }\n`;
    const edit = ensureTokenEntry(inline, fresh);
    assert.equal(edit.outcome, 'replaced');
    const tokens = (parse(edit.text) as { tokens: Record<string, { hash: string }> }).tokens;
    assert.equal(tokens['broker-write-team-a']?.hash, fresh.hash);
    assert.equal(tokens.alice?.hash, `sha256-${'b'.repeat(64)}`);
  });

  it('refuses a file that is not valid TOML rather than overwrite it', () => {
    assert.throws(() => ensureTokenEntry('[tokens.alice\nhash = ', record()), TokensTomlError);
  });
});

describe('file write-token store', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'broker-state-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers null for a world without a record', async () => {
    assert.equal(await new FileWriteTokenStore(dir).get('nobody'), null);
  });

  it('writes the Go broker layout, owner-only', async () => {
    const store = new FileWriteTokenStore(dir);
    const token = mintWriteTokenRecord('layout', ['/**']);
    await store.put('layout', token, null);
    const path = join(dir, 'demarkus-broker-write-token-layout.json');
    assert.equal(
      await readFile(path, 'utf8'),
      `{"label":"broker-write-layout","rawToken":"${token.rawToken}","entry":{"Hash":"${token.hash}","Paths":["/**"],"Operations":["publish"],"Expires":""}}`,
    );
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });

  it('reads back what it wrote, with a version', async () => {
    const store = new FileWriteTokenStore(dir);
    const token = mintWriteTokenRecord('roundtrip', ['/docs/**']);
    const written = await store.put('roundtrip', token, null);
    const read = await store.get('roundtrip');
    assert.deepEqual(read, written);
    assert.deepEqual(read?.record, token);
  });

  it('lets only the first create win', async () => {
    const store = new FileWriteTokenStore(dir);
    const results = await Promise.allSettled([
      store.put('race', mintWriteTokenRecord('race', ['/**']), null),
      new FileWriteTokenStore(dir).put('race', mintWriteTokenRecord('race', ['/**']), null),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(rejected.reason instanceof WriteTokenConflictError);
    const winner = results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{
      record: WriteTokenRecord;
    }>;
    assert.deepEqual((await store.get('race'))?.record, winner.value.record);
  });

  it('replaces only at the expected version', async () => {
    const store = new FileWriteTokenStore(dir);
    const first = await store.put('versioned', mintWriteTokenRecord('versioned', ['/**']), null);
    const second = await store.put('versioned', mintWriteTokenRecord('versioned', ['/**']), first.version);
    await assert.rejects(
      store.put('versioned', mintWriteTokenRecord('versioned', ['/**']), first.version),
      WriteTokenConflictError,
    );
    assert.deepEqual((await store.get('versioned'))?.record, second.record);
  });

  it('reports a malformed record without its contents', async () => {
    await writeFile(join(dir, 'demarkus-broker-write-token-broken.json'), '{"label":"x","rawToken":"hunter2"}');
    await assert.rejects(new FileWriteTokenStore(dir).get('broken'), (error: unknown) => {
      assert.ok(error instanceof WriteTokenStoreError);
      assert.equal(error.message, 'the write-token record of world "broken" is malformed');
      return true;
    });
  });

  it('reports a record file holding the JSON null as malformed, as the Secret backend does', async () => {
    await writeFile(join(dir, 'demarkus-broker-write-token-nothing.json'), 'null');
    await assert.rejects(new FileWriteTokenStore(dir).get('nothing'), (error: unknown) => {
      assert.ok(error instanceof WriteTokenStoreError);
      assert.equal(error.message, 'the write-token record of world "nothing" is malformed');
      return true;
    });
  });
});

describe('file tokens sink and provisioning', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'broker-sink-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const worldWith = (name: string, file: string | undefined): WorldDefinition => ({
    name,
    address: '127.0.0.1:1',
    source: 'config',
    allow: { domains: [], groups: [], emails: [] },
    writeTokenPaths: ['/**'],
    tokens: file === undefined ? {} : { file },
  });

  it('edits the world tokens file in place and keeps its mode', async () => {
    const file = join(dir, 'mode.toml');
    await writeFile(file, '[tokens]\n', { mode: 0o640 });
    const token = mintWriteTokenRecord('mode', ['/**']);
    assert.equal(await new FileTokensSink().ensure(worldWith('mode', file), token), 'appended');
    assert.equal(await new FileTokensSink().ensure(worldWith('mode', file), token), 'unchanged');
    assert.equal((await stat(file)).mode & 0o777, 0o640);
    assert.ok((await readFile(file, 'utf8')).startsWith('[tokens]\n\n[tokens.broker-write-mode]\n'));
  });

  it('refuses a world without a tokens file', async () => {
    await assert.rejects(
      new FileTokensSink().ensure(worldWith('none', undefined), mintWriteTokenRecord('none', ['/**'])),
      TokensSinkError,
    );
  });

  it('leaves a broken tokens file untouched', async () => {
    const file = join(dir, 'broken.toml');
    await writeFile(file, '[tokens.x\n');
    await assert.rejects(
      new FileTokensSink().ensure(worldWith('broken', file), mintWriteTokenRecord('broken', ['/**'])),
      TokensSinkError,
    );
    assert.equal(await readFile(file, 'utf8'), '[tokens.x\n');
  });

  it('mints once, stores the raw token and writes only its hash to the world', async () => {
    const file = join(dir, 'mint.toml');
    const store = new FileWriteTokenStore(join(dir, 'state'));
    const provisioner = new WriteTokenProvisioner(store, new FileTokensSink());
    const [one, two] = await Promise.all([
      provisioner.token(worldWith('mint', file)),
      provisioner.token(worldWith('mint', file)),
    ]);
    assert.equal(one, two);
    assert.equal((await store.get('mint'))?.record.rawToken, one);
    const toml = await readFile(file, 'utf8');
    assert.ok(toml.includes(hashToken(one)));
    assert.ok(!toml.includes(one));
  });

  it('reuses the stored record in a second provisioner and re-syncs a world file that lost it', async () => {
    const file = join(dir, 'reuse.toml');
    const state = join(dir, 'state');
    const first = await new WriteTokenProvisioner(new FileWriteTokenStore(state), new FileTokensSink()).token(
      worldWith('reuse', file),
    );
    await writeFile(file, '');
    const second = await new WriteTokenProvisioner(new FileWriteTokenStore(state), new FileTokensSink()).token(
      worldWith('reuse', file),
    );
    assert.equal(second, first);
    assert.ok((await readFile(file, 'utf8')).includes(hashToken(first)));
  });
});
