/**
 * Crash safety of the file store: a writer process is SIGKILLed at random
 * moments, and after each kill the store must hold every acknowledged write,
 * keep every hash chain valid, and show no half-written version.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FileStore, inspectStoredVersion } from '../../../src/world/store/index.ts';

const writerScript = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const rounds = 12;

type Ack = { path: string; version: number; contentHash: string };

let root = '';
after(async () => {
  if (root !== '') await rm(root, { recursive: true, force: true });
});

/**
 * Run the writer until it has acknowledged `killAfterAcks` writes, wait a random
 * few milliseconds more (so the kill lands anywhere inside a later write), then
 * SIGKILL it. Resolves with every ack it printed.
 */
function runAndKill(storeRoot: string, killAfterAcks: number, extraDelayMs: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writerScript, storeRoot], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acks: Ack[] = [];
    let pending = '';
    let stderr = '';
    let killing = false;
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const [word, docPath, version, contentHash] = line.split(' ');
        if (word !== 'ack') continue;
        acks.push({
          path: decodeURIComponent(docPath ?? ''),
          version: Number(version),
          contentHash: contentHash ?? '',
        });
      }
      if (!killing && acks.length >= killAfterAcks) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), extraDelayMs);
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      if (signal === 'SIGKILL' && killing) resolve(acks);
      else reject(new Error(`writer ended on its own (code ${code}, signal ${signal}):\n${stderr}`));
    });
  });
}

/** Every per-document history directory under the root. */
async function historyDirs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (!entry.isDirectory()) continue;
    if (entry.name === 'versions') {
      for (const doc of await readdir(abs, { withFileTypes: true }))
        if (doc.isDirectory()) out.push(path.join(abs, doc.name));
    } else {
      out.push(...(await historyDirs(abs)));
    }
  }
  return out;
}

async function assertStoreSound(store: FileStore, acked: Map<string, Ack[]>): Promise<void> {
  for (const [docPath, acks] of acked) {
    const doc = await store.current(docPath);
    assert.ok(doc !== null, `${docPath} exists`);
    for (const ack of acks) {
      assert.ok(
        doc.current.version >= ack.version,
        `${docPath} current v${doc.current.version} is at or past acked v${ack.version}`,
      );
      const kept = await store.version(docPath, ack.version);
      assert.equal(kept?.contentHash, ack.contentHash, `${docPath} v${ack.version} holds the acknowledged body`);
    }
    const history = await store.history(docPath);
    assert.equal(history?.chainValid, true, `${docPath} chain: ${history?.chainError ?? ''}`);
  }
  for (const docDir of await historyDirs(store.root)) {
    for (const name of await readdir(docDir)) {
      assert.ok(/^v\d+$/.test(name) || name === 'archive-state', `no temp file left: ${path.join(docDir, name)}`);
      if (name === 'archive-state') continue;
      const header = inspectStoredVersion(await readFile(path.join(docDir, name)));
      assert.equal(`v${header.version}`, name, `${path.join(docDir, name)} declares its own number`);
      assert.ok((await lstat(path.join(docDir, name))).isFile());
    }
  }
}

describe('file store under SIGKILL', () => {
  it('keeps every acknowledged write, every chain valid and no half-written version', {
    timeout: 300_000,
  }, async () => {
    root = await mkdtemp(path.join(tmpdir(), 'mark-crash-'));
    const acked = new Map<string, Ack[]>();
    let total = 0;
    for (let round = 0; round < rounds; round++) {
      const acks = await runAndKill(root, 2 + randomInt(25), randomInt(15));
      for (const ack of acks) acked.set(ack.path, [...(acked.get(ack.path) ?? []), ack]);
      total += acks.length;
      const store = await FileStore.open(root);
      await assertStoreSound(store, acked);
      await store.close();
    }
    assert.ok(total >= rounds * 2, `the writer acknowledged ${total} writes`);

    // Writing continues after the last crash.
    const store = await FileStore.open(root);
    const doc = await store.current('/a.md');
    const expectedVersion = doc?.current.version ?? 0;
    const published = await store.publish('/a.md', Buffer.from('# after the crashes\n'), {}, { expectedVersion });
    assert.equal(published.version.version, expectedVersion + 1);
    const appended = await store.append(
      '/a.md',
      Buffer.from('still writing\n'),
      {},
      { expectedVersion: expectedVersion + 1 },
    );
    assert.equal(appended.version.version, expectedVersion + 2);
    assert.equal((await store.history('/a.md'))?.chainValid, true);
  });
});
