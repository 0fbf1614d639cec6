/**
 * Builds copies of @matrixai/quic (and the @matrixai packages that share its lock
 * library) with any subset of the project's patches applied, so a benchmark can
 * load the upstream code and each patch on its own side by side in one process.
 * The installed tree is the patched one (patch-package runs on install); the
 * upstream copy is made by reversing patches/ with GNU patch, and each variant
 * then re-applies only the hunks that belong to it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const patchesDir = join(root, 'patches');
const cacheDir = join(root, 'node_modules/.cache/quic-variants');
/** Every package that imports @matrixai/async-locks must be copied, or it would see the installed (patched) one. */
const copiedPackages = ['quic', 'async-locks', 'async-init', 'contexts'];

export interface QuicPatchChange {
  /** Short name used in bench output and docs/benchmarks.md. */
  name: string;
  /** What the change does, one line. */
  summary: string;
  /** Selects this change's hunks: the patch file and a hunk's text. */
  owns: (patchFile: string, hunk: string) => boolean;
}

export const quicPatchChanges: readonly QuicPatchChange[] = [
  {
    name: 'recv-mutex',
    summary: 'QUICConnection.recv serialised by a promise chain instead of an async-locks Lock',
    owns: (file, hunk) => file.includes('+quic+') && (hunk.includes('RecvMutex') || hunk.includes('import { Lock }')),
  },
  {
    name: 'lock-no-deadline',
    summary: 'async-locks builds no timeout error, Timer or abort when a lock has no deadline (stream destroy, recv)',
    owns: (file) => file.includes('+async-locks+'),
  },
  {
    name: 'recv-batch',
    summary: 'datagrams of one event-loop turn share one processStreams and one send (one ACK per burst)',
    owns: (file, hunk) => file.includes('+quic+') && (hunk.includes('recvBatch') || hunk.includes('recvDatagram')),
  },
];

interface PatchFile {
  name: string;
  header: string;
  hunks: string[];
}

function readPatches(): PatchFile[] {
  return readdirSync(patchesDir)
    .filter((name) => name.startsWith('@matrixai+') && name.endsWith('.patch'))
    .map((name) => {
      const text = readFileSync(join(patchesDir, name), 'utf8');
      if ((text.match(/^diff --git /gm) ?? []).length !== 1) throw new Error(`${name}: expected one file per patch`);
      const [header = '', ...hunks] = text.split(/^(?=@@ )/m);
      return { name, header, hunks };
    });
}

function applyPatch(dir: string, text: string, reverse: boolean): void {
  execFileSync('patch', ['-p1', '--silent', '--no-backup-if-mismatch', ...(reverse ? ['-R'] : [])], {
    cwd: dir,
    input: text,
  });
}

/**
 * Returns the directory of a copy with `changes` applied (none: upstream 2.0.9).
 * Copies are rebuilt whenever a patch file is newer than the copy.
 */
export function buildQuicVariant(changes: readonly QuicPatchChange[]): string {
  const label = changes.length === 0 ? 'upstream' : changes.map((c) => c.name).join('+');
  const dir = join(cacheDir, label);
  const patches = readPatches();
  const stamp = JSON.stringify(patches);
  const stampFile = join(dir, 'patches.json');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return dir;
  rmSync(dir, { recursive: true, force: true });
  for (const name of copiedPackages) {
    const target = join(dir, 'node_modules/@matrixai', name);
    mkdirSync(dirname(target), { recursive: true });
    cpSync(join(root, 'node_modules/@matrixai', name), target, { recursive: true });
  }
  for (const patch of patches) {
    applyPatch(dir, patch.header + patch.hunks.join(''), true);
    const kept = patch.hunks.filter((hunk) => changes.some((change) => change.owns(patch.name, hunk)));
    if (kept.length > 0) applyPatch(dir, patch.header + kept.join(''), false);
  }
  writeFileSync(stampFile, stamp);
  return dir;
}

export type QuicModule = typeof import('@matrixai/quic');

/** Imports the @matrixai/quic entry point of a variant directory. */
export async function importQuicVariant(dir: string): Promise<QuicModule> {
  return (await import(pathToFileURL(join(dir, 'node_modules/@matrixai/quic/dist/index.js')).href)) as QuicModule;
}
