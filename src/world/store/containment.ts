/**
 * Keeping every file access inside the content root (Go `contain`,
 * `resolveNonExistent`): a planted symlink in the tree must not let a read or a
 * write reach outside it, and a path beneath a document (`/a.md/b.md`) is a
 * collision, not a place to create directories.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isMissing } from './errors.ts';
import { isContained } from './paths.ts';
import { exists } from './durable-fs.ts';

export type Resolution = { kind: 'ok'; real: string } | { kind: 'escapes' } | { kind: 'under-document' };

/**
 * Resolve `abs`, which need not exist: the closest existing ancestor is resolved
 * through its symlinks and the missing tail appended. An existing non-directory
 * ancestor with a tail below it means the path is beneath a document.
 */
export async function resolveInRoot(realRoot: string, abs: string): Promise<Resolution> {
  const tail: string[] = [];
  let current = abs;
  while (!(await exists(current))) {
    const parent = path.dirname(current);
    if (parent === current) return { kind: 'escapes' };
    tail.unshift(path.basename(current));
    current = parent;
  }
  let resolved: string;
  try {
    resolved = await realpath(current);
  } catch (err) {
    if (isMissing(err)) return { kind: 'escapes' };
    throw err;
  }
  if (!isContained(resolved, realRoot)) return { kind: 'escapes' };
  if (tail.length > 0 && !(await isDirectory(resolved))) return { kind: 'under-document' };
  return { kind: 'ok', real: path.join(resolved, ...tail) };
}

/** The resolved path of an existing file or directory inside the root, or null. */
export async function resolveExisting(realRoot: string, abs: string): Promise<string | null> {
  try {
    const resolved = await realpath(abs);
    return isContained(resolved, realRoot) ? resolved : null;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

export async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

/**
 * Resolve the directory a document would live in. Beyond `resolveInRoot`, an
 * existing non-directory at the directory's own path (`/a.md` for `/a.md/b.md`)
 * also puts the document beneath a document.
 */
export async function resolveParentDirectory(realRoot: string, dirAbs: string): Promise<Resolution> {
  const resolution = await resolveInRoot(realRoot, dirAbs);
  if (resolution.kind !== 'ok') return resolution;
  if ((await exists(resolution.real)) && !(await isDirectory(resolution.real))) return { kind: 'under-document' };
  return resolution;
}
