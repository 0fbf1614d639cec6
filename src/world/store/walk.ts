/**
 * Every current document in the tree (Go `walkCurrentFiles`), for building the
 * catalog and the hash index at start-up. Hidden directories are walked too:
 * `/.well-known/agent-manifest.md` is an ordinary document. `versions`
 * directories are history, never documents; symlinked directories are not
 * followed.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { readCurrent, type StoreRoot } from './doc-reader.ts';
import { isMissing } from './errors.ts';
import { compareBytes } from '../../protocol/byte-order.ts';
import { versionsDirName } from './paths.ts';
import type { DocState } from './types.ts';

export async function* walkDocuments(ctx: StoreRoot, relDir = ''): AsyncGenerator<DocState> {
  const dirAbs = path.join(ctx.root, relDir);
  let entries: Dirent[];
  try {
    entries = await readdir(dirAbs, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return;
    throw err;
  }
  entries.sort((a, b) => compareBytes(a.name, b.name));
  const histories = new Set(
    entries.some((e) => e.name === versionsDirName && e.isDirectory())
      ? await readdir(path.join(dirAbs, versionsDirName))
      : [],
  );
  for (const entry of entries) {
    const relPath = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== versionsDirName) yield* walkDocuments(ctx, relPath);
      continue;
    }
    if (!histories.has(entry.name)) continue;
    const doc = await readCurrent(ctx, `/${relPath}`);
    if (doc !== null) yield doc;
  }
}
