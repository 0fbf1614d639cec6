/**
 * PUBLISH's store write (Mark SPEC §6.4; Go `protocol/store/store.go` `WriteChecked`/`write`).
 * The checks run in the protocol's order, each before any state changes:
 *
 *   size, metadata, UTF-8 → `..` → expected-version → path collision →
 *   archived → no-op (same body and same normalized metadata) → policy hook →
 *   write v(N+1) → retention prune.
 *
 * Callers hold the document's write lock.
 */
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { maxBodyBytes, maxVersionNumber } from '../../protocol/limits.ts';
import type { Metadata } from '../../protocol/metadata.ts';
import { resolveInRoot, resolveParentDirectory } from './containment.ts';
import {
  effectiveArchived,
  highestVersion,
  listVersions,
  maxStoredFileBytes,
  readCurrentPointer,
  readVersionFile,
} from './doc-files.ts';
import { toStoredVersion, truncateToSecond, type StoreRoot } from './doc-reader.ts';
import { createVersionFile, mkdirDurable, swapSymlink, syncDir } from './durable-fs.ts';
import { conflict, notFound, sizeLimitMessage, StoreError } from './errors.ts';
import { locate, symlinkTarget, versionFileName, type DocLocation } from './paths.ts';
import { metaEqual, normalizeMetadata, retentionValue, validateMeta } from './publisher-meta.ts';
import { extractBody, extractMetadata, serializeVersion } from './stored-format.ts';
import type { PruneResult, WriteCheck, WriteOutcome } from './types.ts';

export type WriterContext = StoreRoot & { now: () => Date; writeCheck?: WriteCheck | undefined };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** `storefmt.ValidateWrite`: size, then metadata, then UTF-8. */
export function validateWrite(body: Uint8Array, meta: Metadata): void {
  if (body.length > maxBodyBytes) throw new StoreError('ERR_TOO_LARGE', sizeLimitMessage);
  validateMeta(meta);
  try {
    strictUtf8.decode(body);
  } catch {
    throw new StoreError('ERR_INVALID_CONTENT', 'document body must be valid UTF-8 text');
  }
}

/** Go `CurrentVersionResult`: the highest retained version, 0 when none or not inside the root. */
export async function currentVersionForWrite(ctx: StoreRoot, loc: DocLocation): Promise<number> {
  const resolution = await resolveInRoot(ctx.realRoot, loc.docDir);
  return resolution.kind === 'ok' ? highestVersion(loc.docDir) : 0;
}

export async function writeDocument(
  ctx: WriterContext,
  reqPath: string,
  body: Uint8Array,
  meta: Metadata,
  expectedVersion: number | undefined,
): Promise<WriteOutcome> {
  validateWrite(body, meta);
  const loc = locate(ctx.root, reqPath);
  if (loc === null) throw notFound(reqPath);
  if (expectedVersion !== undefined) {
    const current = await currentVersionForWrite(ctx, loc);
    if (current !== expectedVersion) throw conflict(current);
  }
  await checkTopology(ctx, loc);
  const highest = await highestVersion(loc.docDir);
  const previous = highest === 0 ? null : await readVersionFile(loc.docDir, highest);
  if (previous !== null) {
    if (await effectiveArchived(loc.docDir, previous.raw)) throw new StoreError('ERR_ARCHIVED', 'document is archived');
    if (isNoOp(previous.raw, body, meta)) {
      return { kind: 'unchanged', version: toStoredVersion(loc.canonical, highest, previous) };
    }
  }
  return createNextVersion(ctx, loc, highest + 1, previous?.raw ?? null, body, meta);
}

/** Go `store.WriteChecked` no-op: identical body bytes AND `MetaEqual(stored, NormalizeMetadata(request))`. */
function isNoOp(previousRaw: Buffer, body: Uint8Array, meta: Metadata): boolean {
  return (
    Buffer.compare(extractBody(previousRaw), body) === 0 &&
    metaEqual(extractMetadata(previousRaw), normalizeMetadata(meta))
  );
}

/** Go `store.WriteChecked` collision: a document beneath a document, or a directory at the path. */
async function checkTopology(ctx: StoreRoot, loc: DocLocation): Promise<void> {
  const parent = await resolveParentDirectory(ctx.realRoot, loc.dirAbs);
  if (parent.kind === 'under-document') {
    throw new StoreError(
      'ERR_COLLISION',
      `cannot publish ${loc.canonical}: a document exists at an ancestor: path collision`,
    );
  }
  if (parent.kind === 'escapes' || (await resolveInRoot(ctx.realRoot, loc.docDir)).kind !== 'ok')
    throw notFound(loc.canonical);
  if ((await readCurrentPointer(loc)).kind === 'directory') {
    throw new StoreError(
      'ERR_COLLISION',
      `cannot publish ${loc.canonical}: a directory exists at this path: path collision`,
    );
  }
}

async function createNextVersion(
  ctx: WriterContext,
  loc: DocLocation,
  next: number,
  previousRaw: Buffer | null,
  body: Uint8Array,
  meta: Metadata,
): Promise<WriteOutcome> {
  if (next > maxVersionNumber) throw new StoreError('ERR_TOO_LARGE', `version ${next} exceeds ${maxVersionNumber}`);
  const stored = serializeVersion(next, previousRaw, body, meta);
  if (stored.length > maxStoredFileBytes) throw new StoreError('ERR_TOO_LARGE', sizeLimitMessage);
  const persisted = extractMetadata(stored);
  await ctx.writeCheck?.({ path: loc.canonical, body, metadata: persisted });
  const mtime = ctx.now();
  await mkdirDurable(loc.docDir);
  if (!(await createVersionFile(loc.docDir, next, stored, mtime))) throw conflict(await highestVersion(loc.docDir));
  await pointAt(loc, next);
  const version = toStoredVersion(loc.canonical, next, { raw: stored, mtime: truncateToSecond(mtime) });
  const keep = retentionValue(meta);
  const prune = keep > 0 ? await pruneVersions(loc.docDir, next, keep) : null;
  return prune === null ? { kind: 'created', version } : { kind: 'created', version, prune };
}

/**
 * Make the linked vN durable (fsync its folder) and swap the pointer to it
 * (durable-fs.ts, steps 3 and 4). When either fails and the pointer does not
 * name vN, vN is removed again: readers follow the pointer (vN-1) while writers
 * take the highest version (vN), so every expected-version write would conflict
 * until a restart, and the restart would roll the failed write forward.
 */
async function pointAt(loc: DocLocation, version: number): Promise<void> {
  try {
    await syncDir(loc.docDir);
    await swapSymlink(loc.currentAbs, symlinkTarget(loc.base, version), loc.docDir);
  } catch (err) {
    const pointer = await readCurrentPointer(loc).catch(() => null);
    if (pointer?.kind !== 'symlink' || pointer.version !== version) {
      await unlink(path.join(loc.docDir, versionFileName(version))).catch(() => undefined);
    }
    throw err;
  }
}

/**
 * Go `storefmt` retention: delete versions ≤ N − keep, oldest first, stopping at the
 * first failure so the survivors stay a contiguous, verifiable suffix.
 */
async function pruneVersions(docDir: string, current: number, keep: number): Promise<PruneResult | null> {
  const cutoff = current - keep;
  if (cutoff < 1) return null;
  let from = 0;
  let to = 0;
  let error: Error | undefined;
  for (const version of await listVersions(docDir)) {
    if (version > cutoff) break;
    try {
      await unlink(path.join(docDir, versionFileName(version)));
    } catch (err) {
      error = err as Error;
      break;
    }
    if (from === 0) from = version;
    to = version;
  }
  if (from === 0 && error === undefined) return null;
  await syncDir(docDir).catch(() => undefined);
  return error === undefined ? { from, to } : { from, to, error };
}
