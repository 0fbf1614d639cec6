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
/**
 * Every patched package, and every package that imports one (@matrixai/async-locks,
 * @matrixai/events), must be copied, or the copy would see the installed (patched) one.
 */
const copiedPackages = ['quic', 'async-locks', 'async-init', 'contexts', 'events'];

export interface QuicPatchChange {
  /** Short name used in bench output and docs/benchmarks.md. */
  name: string;
  /** What the change does, one line. */
  summary: string;
  /** Selects this change's hunks: the patch file and a hunk's text. */
  owns: (patchFile: string, hunk: string) => boolean;
  /**
   * Lines this change puts inside another change's hunk (diff cannot split
   * them): in a copy without this change they are turned back into `without`.
   */
  within?: ReadonlyArray<{ file: string; with: string; without: string }>;
}

const quicConnectionFile = 'node_modules/@matrixai/quic/dist/QUICConnection.js';

export const quicPatchChanges: readonly QuicPatchChange[] = [
  {
    name: 'recv-mutex',
    summary: 'QUICConnection.recv serialised by a promise chain instead of an async-locks Lock',
    owns: (file, hunk) => file.includes('+quic+') && (hunk.includes('RecvMutex') || hunk.includes('import { Lock }')),
  },
  {
    name: 'lock-no-deadline',
    summary: 'async-locks builds no timeout error, Timer or abort when a lock has no deadline (stream destroy, recv)',
    owns: (file, hunk) => file.includes('+async-locks+') && !hunk.includes('lock-fast'),
  },
  {
    name: 'lock-fast',
    summary: 'RWLockWriter.withReadF/withWriteF without a context take an idle lock at once (stream destroy)',
    owns: (file, hunk) => file.includes('+async-locks+') && hunk.includes('lock-fast'),
  },
  {
    name: 'recv-batch',
    summary: 'datagrams of one event-loop turn share one processStreams and one send (one ACK per burst)',
    owns: (file, hunk) => file.includes('+quic+') && (hunk.includes('recvBatch') || hunk.includes('recvDatagram')),
  },
  {
    name: 'conn-timer',
    summary: 'the connection timeout is one Node timer re-armed in place, not a Timer built, reset or aborted per send',
    owns: (file, hunk) => file.includes('+quic+') && hunk.includes('connTimeout'),
  },
  {
    name: 'events-unheard',
    summary: 'Evented builds and dispatches no EventDefault, EventAll or event that no listener can receive',
    owns: (file) => file.includes('+events+'),
  },
  {
    name: 'stream-events-heard',
    summary:
      'a connection re-dispatches a stream event only when a listener on it, or on its client or server, can hear it',
    owns: (file, hunk) =>
      file.includes('+quic+') &&
      (hunk.includes('eventRelayOwner') || hunk.includes('eventListenersOf') || hunk.includes('eventsUtils')),
  },
  {
    name: 'send-soon',
    summary: 'one send per event-loop turn for stream writes and received datagrams: data, FIN and ACK share datagrams',
    // Its lines inside recv-batch's hunk are listed in `within`.
    owns: (file, hunk) =>
      file.includes('+quic+') &&
      (hunk.includes('sendSoon') || hunk.includes('flushSend')) &&
      !hunk.includes('recvBatch'),
    within: [
      {
        file: quicConnectionFile,
        with: [
          '                if (this.secureEstablished) {',
          '                    this.processStreams();',
          '                }',
          '                if (this.secureEstablished &&',
          '                    !this.conn.isDraining() &&',
          '                    !this.conn.isClosed()) {',
          '                    // After every recv, there must be a send: on an open connection',
          '                    // it is the next shared send, after the streams answered.',
          '                    this.sendSoon();',
          '                }',
          '                else {',
          '                    // After every recv, there must be a send. During the handshake',
          '                    // and once the peer closed, it runs now, as it did: that send',
          "                    // is what reports the peer's close.",
          '                    await this.send();',
          '                }',
        ].join('\n'),
        without: [
          '                if (this.secureEstablished) {',
          '                    this.processStreams();',
          '                }',
          '                // After every recv, there must be a send.',
          '                await this.send();',
        ].join('\n'),
      },
    ],
  },
];

/** One file's diff within a patch file (patch-package writes one patch file per package). */
interface PatchFile {
  /** The patch file's name, e.g. `@matrixai+quic+2.0.9.patch`. */
  name: string;
  header: string;
  hunks: string[];
}

/** Every file section of every patch, split into its header and hunks. */
function readPatches(): PatchFile[] {
  return readdirSync(patchesDir)
    .filter((name) => name.startsWith('@matrixai+') && name.endsWith('.patch'))
    .flatMap((name) =>
      readFileSync(join(patchesDir, name), 'utf8')
        .split(/^(?=diff --git )/m)
        .filter((section) => section.startsWith('diff --git '))
        .map((section) => {
          const [header = '', ...hunks] = section.split(/^(?=@@ )/m);
          return { name, header, hunks };
        }),
    );
}

function applyPatch(dir: string, text: string, reverse: boolean): void {
  execFileSync('patch', ['-p1', '--silent', '--no-backup-if-mismatch', ...(reverse ? ['-R'] : [])], {
    cwd: dir,
    input: text,
  });
}

/**
 * What a copy with `changes` is built from: every patch with the hunks the
 * changes' `owns` rules select (`kept`), and `stamp`, the text that identifies
 * such a copy. The stamp holds the patches' text, the selection and the
 * `within` edits, so changing any of them, a rule alone included, rebuilds the
 * copy; the selection is keyed by its outcome, since a rule is code.
 */
export function quicVariantPlan(changes: readonly QuicPatchChange[]): {
  patches: Array<PatchFile & { kept: string[] }>;
  stamp: string;
} {
  const patches = readPatches().map((patch) => ({
    ...patch,
    kept: patch.hunks.filter((hunk) => changes.some((change) => change.owns(patch.name, hunk))),
  }));
  return { patches, stamp: JSON.stringify([patches, quicPatchChanges.map((change) => change.within ?? [])]) };
}

/**
 * Returns the directory of a copy with `changes` applied (none: upstream 2.0.9),
 * rebuilt whenever its plan's stamp differs from the one it was built from.
 */
export function buildQuicVariant(changes: readonly QuicPatchChange[]): string {
  const label = changes.length === 0 ? 'upstream' : changes.map((c) => c.name).join('+');
  const dir = join(cacheDir, label);
  const { patches, stamp } = quicVariantPlan(changes);
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
    if (patch.kept.length > 0) applyPatch(dir, patch.header + patch.kept.join(''), false);
  }
  for (const change of quicPatchChanges) {
    if (changes.includes(change)) continue;
    for (const edit of change.within ?? []) {
      const path = join(dir, edit.file);
      const text = readFileSync(path, 'utf8');
      if (text.includes(edit.with)) writeFileSync(path, text.replace(edit.with, edit.without));
    }
  }
  writeFileSync(stampFile, stamp);
  return dir;
}

export type QuicModule = typeof import('@matrixai/quic');

/** Imports the @matrixai/quic entry point of a variant directory. */
export async function importQuicVariant(dir: string): Promise<QuicModule> {
  return (await import(pathToFileURL(join(dir, 'node_modules/@matrixai/quic/dist/index.js')).href)) as QuicModule;
}
