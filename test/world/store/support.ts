import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileStore } from '../../../src/world/store/index.ts';
import type { FileStoreOptions } from '../../../src/world/store/index.ts';

/** Every timestamp in the golden scenario (wiregolden.go pins the same instant). */
export const pinnedNow = new Date('2026-01-01T00:00:00Z');

const roots: string[] = [];

export async function tempRoot(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'mark-store-'));
  roots.push(root);
  return root;
}

/** Remove every root made so far; call from `after`. */
export async function removeTempRoots(): Promise<void> {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
}

export async function openStore(options: FileStoreOptions = {}): Promise<{ store: FileStore; root: string }> {
  const root = await tempRoot();
  const store = await FileStore.open(root, { now: () => pinnedNow, ...options });
  return { store, root };
}

export function bytes(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

export function text(data: Uint8Array): string {
  return Buffer.from(data).toString('utf8');
}
