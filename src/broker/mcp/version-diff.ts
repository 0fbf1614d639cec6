import { formatPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';

/**
 * The line difference between two versions of a document, as mark_diff
 * answers it: a unified diff (jsdiff, the `diff` package) and the same hunks as
 * data. Bounded twice: the line diff gives up after `timeoutMs` (Myers' cost
 * grows with the number of edits, and bodies may be 1 MiB each), and the
 * answer keeps whole hunks, in order, while they fit in `maxPatchBytes`.
 */
export type DiffBounds = { maxPatchBytes: number; timeoutMs: number };

/** 64 KiB of patch (16 times the 4 KiB an agent reads comfortably) and 2 s of diffing per call. */
export const defaultDiffBounds: DiffBounds = { maxPatchBytes: 65_536, timeoutMs: 2000 };

export type Hunk = {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  /** Each line with its mark: `+` added, `-` removed, ` ` context, `\` the no-newline note. */
  lines: string[];
};

export type VersionDiff =
  | {
      kind: 'diff';
      hunks: Hunk[];
      /** Hunks in the whole difference; more than `hunks.length` when the answer was cut. */
      total_hunks: number;
      added: number;
      removed: number;
      truncated: boolean;
      /** The unified diff of the hunks kept, with `---`/`+++` headers; "" when the versions are the same. */
      patch: string;
    }
  | { kind: 'too-complex' };

export type DiffSide = { label: string; text: string };

export function diffVersions(
  from: DiffSide,
  to: DiffSide,
  context: number,
  bounds: DiffBounds = defaultDiffBounds,
): Promise<VersionDiff> {
  return new Promise((resolve) => {
    // The callback form runs the diff in slices, so a large diff does not hold the event loop.
    structuredPatch(from.label, to.label, from.text, to.text, undefined, undefined, {
      context,
      timeout: bounds.timeoutMs,
      callback: (patch) => resolve(patch === undefined ? { kind: 'too-complex' } : bounded(patch, bounds)),
    });
  });
}

function bounded(patch: StructuredPatch, bounds: DiffBounds): VersionDiff {
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks)
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  const kept: StructuredPatchHunk[] = [];
  let size = headerBytes(patch);
  for (const hunk of patch.hunks) {
    const hunkSize = Buffer.byteLength(formatPatch({ ...patch, hunks: [hunk] }, fileHeadersOnly)) - headerBytes(patch);
    if (size + hunkSize > bounds.maxPatchBytes) break;
    kept.push(hunk);
    size += hunkSize;
  }
  const text = kept.length === 0 ? '' : formatPatch({ ...patch, hunks: kept }, fileHeadersOnly);
  return {
    kind: 'diff',
    hunks: kept.map((h) => ({
      old_start: unifiedStart(h.oldStart, h.oldLines),
      old_lines: h.oldLines,
      new_start: unifiedStart(h.newStart, h.newLines),
      new_lines: h.newLines,
      lines: h.lines,
    })),
    total_hunks: patch.hunks.length,
    added,
    removed,
    truncated: kept.length < patch.hunks.length,
    patch: text,
  };
}

/**
 * A hunk start as the unified-diff text shows it: a side with no lines names the line *after*
 * which the change goes, so 0 for the start of the file (`@@ -0,0 +1,7 @@`; GNU diffutils,
 * "Detailed Unified"). jsdiff's structured hunks keep the 1-based line and its formatPatch
 * subtracts one when printing; the structured answer must agree with the text beside it.
 */
function unifiedStart(start: number, lines: number): number {
  return lines === 0 ? start - 1 : start;
}

const fileHeadersOnly = { includeIndex: false, includeUnderline: false, includeFileHeaders: true };

function headerBytes(patch: StructuredPatch): number {
  return Buffer.byteLength(formatPatch({ ...patch, hunks: [] }, fileHeadersOnly));
}
