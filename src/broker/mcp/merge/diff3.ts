/**
 * Line-level three-way merge for mark_publish's merge candidate (Go
 * `client/merge` `Diff3`): a region only one side
 * changed takes that side; both sides changing it the same way keeps one copy;
 * different changes to the same lines are written between git-style markers
 * `<<<<<<< ours`, `=======`, `>>>>>>> theirs`.
 *
 * Hunks come from a longest common subsequence with the reference's
 * tie-breaking, so candidates match the Go broker's. The LCS table is bounded
 * (`maxTableCells`); past it the common prefix is matched directly and a
 * still-too-large middle becomes one changed region, which can only add
 * markers, never lose a line.
 */
export type MergeResult = { body: string; conflict: boolean };

type Hunk = { baseLo: number; baseHi: number; sideLo: number; sideHi: number };
type Match = readonly [baseIndex: number, sideIndex: number];

const maxTableCells = 4_000_000;

export function diff3(base: string, ours: string, theirs: string): MergeResult {
  const b = splitLines(base);
  const o = splitLines(ours);
  const t = splitLines(theirs);
  const oursHunks = editHunks(b, o);
  const theirsHunks = editHunks(b, t);
  const out: string[] = [];
  let conflict = false;
  let bPos = 0;
  let oPos = 0;
  let tPos = 0;
  let oi = 0;
  let ti = 0;
  while (bPos < b.length || oi < oursHunks.length || ti < theirsHunks.length) {
    const oAt = oursHunks[oi]?.baseLo === bPos;
    const tAt = theirsHunks[ti]?.baseLo === bPos;
    if (!oAt && !tAt) {
      const stableEnd = Math.min(b.length, oursHunks[oi]?.baseLo ?? Infinity, theirsHunks[ti]?.baseLo ?? Infinity);
      out.push(...b.slice(bPos, stableEnd));
      oPos += stableEnd - bPos;
      tPos += stableEnd - bPos;
      bPos = stableEnd;
      continue;
    }
    const chunk = unstableChunk(bPos, oPos, tPos, oursHunks, oi, theirsHunks, ti);
    oi = chunk.oi;
    ti = chunk.ti;
    conflict = emitChunk(out, b.slice(bPos, chunk.bHi), o.slice(oPos, chunk.oHi), t.slice(tPos, chunk.tHi)) || conflict;
    bPos = chunk.bHi;
    oPos = chunk.oHi;
    tPos = chunk.tHi;
  }
  return { body: out.join(''), conflict };
}

/**
 * The base range [bLo, bHi) covered by the hunks starting at bLo and every hunk
 * of either side that starts inside it, with the matching side ranges.
 */
function unstableChunk(
  bLo: number,
  oLo: number,
  tLo: number,
  oursHunks: Hunk[],
  oi: number,
  theirsHunks: Hunk[],
  ti: number,
) {
  let bHi = bLo;
  let lastOurs = { baseHi: bLo, sideHi: oLo };
  let lastTheirs = { baseHi: bLo, sideHi: tLo };
  const takeOurs = () => {
    const h = oursHunks[oi++]!;
    bHi = Math.max(bHi, h.baseHi);
    lastOurs = { baseHi: h.baseHi, sideHi: h.sideHi };
  };
  const takeTheirs = () => {
    const h = theirsHunks[ti++]!;
    bHi = Math.max(bHi, h.baseHi);
    lastTheirs = { baseHi: h.baseHi, sideHi: h.sideHi };
  };
  if (oursHunks[oi]?.baseLo === bLo) takeOurs();
  if (theirsHunks[ti]?.baseLo === bLo) takeTheirs();
  for (let grew = true; grew; ) {
    grew = false;
    if (oi < oursHunks.length && oursHunks[oi]!.baseLo < bHi) {
      takeOurs();
      grew = true;
    }
    if (ti < theirsHunks.length && theirsHunks[ti]!.baseLo < bHi) {
      takeTheirs();
      grew = true;
    }
  }
  // After its last hunk each side equals the base line for line up to bHi.
  const oHi = lastOurs.sideHi + (bHi - lastOurs.baseHi);
  const tHi = lastTheirs.sideHi + (bHi - lastTheirs.baseHi);
  return { bHi, oHi, tHi, oi, ti };
}

/** Writes one changed region; true when both sides changed it differently (markers written). */
function emitChunk(out: string[], base: string[], ours: string[], theirs: string[]): boolean {
  const oursKept = sameLines(ours, base);
  const theirsKept = sameLines(theirs, base);
  if (oursKept) out.push(...theirs);
  else if (theirsKept || sameLines(ours, theirs)) out.push(...ours);
  else {
    out.push('<<<<<<< ours\n', ...ours);
    endLine(out);
    out.push('=======\n', ...theirs);
    endLine(out);
    out.push('>>>>>>> theirs\n');
    return true;
  }
  return false;
}

/** Markers start a line: a side whose last line has no LF gets one. */
function endLine(out: string[]): void {
  const last = out.findLast((piece) => piece !== '');
  if (last !== undefined && !last.endsWith('\n')) out.push('\n');
}

/** Go's strings.SplitAfter(s, "\n"): lines keep their LF, and a text ending in LF yields a final "". */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/(?<=\n)/);
  if (text.endsWith('\n')) lines.push('');
  return lines;
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function editHunks(base: string[], side: string[]): Hunk[] {
  const hunks: Hunk[] = [];
  let bPrev = 0;
  let sPrev = 0;
  for (const [bi, si] of commonLines(base, side)) {
    if (bi > bPrev || si > sPrev) hunks.push({ baseLo: bPrev, baseHi: bi, sideLo: sPrev, sideHi: si });
    bPrev = bi + 1;
    sPrev = si + 1;
  }
  if (bPrev < base.length || sPrev < side.length)
    hunks.push({ baseLo: bPrev, baseHi: base.length, sideLo: sPrev, sideHi: side.length });
  return hunks;
}

/** LCS pairs in ascending order; a shared tail is matched from the end, as the table's backtrack would. */
function commonLines(base: string[], side: string[]): Match[] {
  let m = base.length;
  let n = side.length;
  const tail: Match[] = [];
  while (m > 0 && n > 0 && base[m - 1] === side[n - 1]) tail.unshift([--m, --n]);
  const head: Match[] = [];
  let from = 0;
  if (m * n > maxTableCells) {
    while (from < m && from < n && base[from] === side[from]) head.push([from, from++]);
  }
  const middle = (m - from) * (n - from) > maxTableCells ? [] : tableMatches(base, side, from, m, n);
  return [...head, ...middle, ...tail];
}

/** Classic LCS table over base[from, m) × side[from, n), backtracked from the end. */
function tableMatches(base: string[], side: string[], from: number, m: number, n: number): Match[] {
  const rows = m - from;
  const cols = n - from;
  if (rows === 0 || cols === 0) return [];
  const width = cols + 1;
  const table = new Uint32Array((rows + 1) * width);
  for (let i = 1; i <= rows; i++) {
    for (let j = 1; j <= cols; j++) {
      const up = table[(i - 1) * width + j]!;
      const left = table[i * width + j - 1]!;
      table[i * width + j] =
        base[from + i - 1] === side[from + j - 1] ? table[(i - 1) * width + j - 1]! + 1 : Math.max(up, left);
    }
  }
  const matches: Match[] = [];
  for (let i = rows, j = cols; i > 0 && j > 0; ) {
    if (base[from + i - 1] === side[from + j - 1]) {
      matches.push([from + i - 1, from + j - 1]);
      i--;
      j--;
    } else if (table[(i - 1) * width + j]! >= table[i * width + j - 1]!) i--;
    else j--;
  }
  return matches.reverse();
}
