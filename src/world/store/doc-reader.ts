/**
 * Read side of the file store: the current version, a pinned version, and the
 * version history with its hash-chain verdict (Mark SPEC §6.1, §6.3, §9.5-9.6).
 * Flat files without history are not documents: every reader answers null.
 */
import { isStoreError } from './errors.ts';
import { truncateToSecond } from '../../protocol/time.ts';
import { resolveExisting } from './containment.ts';
import { effectiveArchived, listVersions, readVersionFile, visibleVersion, type VersionFile } from './doc-files.ts';
import { locate, type DocLocation } from './paths.ts';
import { contentHash, extractBody, extractMetadata, extractPreviousHash, storedEtag } from './stored-format.ts';
import { inspectStoredVersion } from './strict-reader.ts';
import type { DocState, History, StoredVersion, VersionInfo } from './types.ts';

export type StoreRoot = { root: string; realRoot: string };

export { truncateToSecond };

export function toStoredVersion(docPath: string, version: number, file: VersionFile): StoredVersion {
  const body = extractBody(file.raw);
  return {
    path: docPath,
    version,
    body,
    metadata: extractMetadata(file.raw),
    modified: truncateToSecond(file.mtime),
    etag: storedEtag(file.raw),
    contentHash: contentHash(body),
    raw: file.raw,
  };
}

/** The document's location when its history lies inside the root, else null. */
export async function locateDocument(ctx: StoreRoot, reqPath: string): Promise<DocLocation | null> {
  const loc = locate(ctx.root, reqPath);
  if (loc === null) return null;
  return (await resolveExisting(ctx.realRoot, loc.docDir)) === null ? null : loc;
}

export async function readCurrent(ctx: StoreRoot, reqPath: string): Promise<DocState | null> {
  const loc = await locateDocument(ctx, reqPath);
  if (loc === null) return null;
  const version = await visibleVersion(loc);
  if (version === 0) return null;
  const file = await readVersionFile(loc.docDir, version);
  if (file === null) return null;
  const archived = await effectiveArchived(loc.docDir, file.raw);
  return { path: loc.canonical, current: toStoredVersion(loc.canonical, version, file), archived };
}

/** Version N of a document; no archived check (Mark SPEC §6.1: pinned versions of archived docs serve). */
export async function readVersion(ctx: StoreRoot, reqPath: string, version: number): Promise<StoredVersion | null> {
  if (!Number.isSafeInteger(version) || version < 1) return null;
  const loc = await locateDocument(ctx, reqPath);
  if (loc === null) return null;
  const file = await readVersionFile(loc.docDir, version);
  return file === null ? null : toStoredVersion(loc.canonical, version, file);
}

/** How one history read may be cut short. */
export type HistoryReading = {
  /**
   * Rejects with its reason once it aborts (the client gave up,
   * src/transport/peer-abandonment.ts): versions not yet read are then not read.
   */
  signal?: AbortSignal | undefined;
};

/**
 * Internal, for tests only: not part of the store's API (`FileStore.history`
 * takes a `HistoryReading` and never passes one). Awaited before the chain
 * check reads each version, so test/world/versions-abandonment.test.ts can
 * count the reads and hold one without timing. No file can hold a read from
 * outside: only regular files are versions (doc-files.ts), and access times
 * are not kept on relatime or noatime mounts (docs/decisions.md, 2026-12-07).
 */
export type ChainReadProbe = (version: number) => Promise<void> | void;

export async function readHistory(
  ctx: StoreRoot,
  reqPath: string,
  reading: HistoryReading = {},
  probe?: ChainReadProbe,
): Promise<History | null> {
  const loc = await locateDocument(ctx, reqPath);
  if (loc === null || (await visibleVersion(loc)) === 0) return null;
  const numbers = await listVersions(loc.docDir);
  if (numbers.length === 0) return null;
  const { infos, chainError } = await readChain(loc.docDir, numbers, reading, probe);
  const history: History = { versions: infos.reverse(), chainValid: chainError === null };
  if (chainError !== null) history.chainError = chainError;
  return history;
}

/** How many times a history read starts over after its newest listed version vanished (below). */
const maxFullRestarts = 3;

/**
 * How many versions one history read may read again, per version first listed. Only a full
 * restart (below) reads a version again, and without this bound a read could cost up to
 * `maxFullRestarts + 1` whole chains. One listing's worth lets one full restart through, which is
 * what the rollback of one failed write costs (test/world/versions-prune-race.test.ts).
 * Sliding above a pruned version reads only versions not read yet, so it is not charged: a
 * reader losing the prune race to a stream of publishes keeps sliding forward and answers.
 */
const reReadsPerListedVersion = 1;

/**
 * What a history read has left to spend on reading versions again, shared by its passes over
 * the chain: passes read in ascending order, so a version at or below `highestRead` (read or
 * found gone already) is a re-read, and one above it is read for the first time.
 */
type ReadBudget = { reReadsLeft: number; highestRead: number };

/**
 * The chain check over `listed`, taking the versions a concurrent write removed into account:
 * readers hold no lock (path-locks.ts), so a retention prune may delete listed versions before
 * they are read. A prune deletes oldest first and never the newest (doc-writer.ts
 * `pruneVersions`), so when v<K> is gone every version below it is gone too, and the history is
 * now the versions above K: the check goes on over a fresh listing of those, with the oldest as
 * the new root, as if it had started after the prune (what Go answers from its read snapshot).
 * Only when nothing above K is left (the newest listed version was removed: a failed write's
 * rollback, doc-writer.ts `pointAt`) does it start over from a fresh listing, reading the
 * chain again, at most `maxFullRestarts` times. Those restarts read at most
 * `reReadsPerListedVersion` × the first listing's length versions again (a vanished one counts),
 * then the read fails as one whose versions keep disappearing. First reads are not counted: they
 * grow only with versions published meanwhile; the request's signal bounds the whole.
 */
async function readChain(
  docDir: string,
  listed: number[],
  reading: HistoryReading,
  probe: ChainReadProbe | undefined,
): Promise<{ infos: VersionInfo[]; chainError: string | null }> {
  let numbers = listed;
  const budget: ReadBudget = { reReadsLeft: reReadsPerListedVersion * listed.length, highestRead: 0 };
  for (let fullRestarts = 0; ; ) {
    const walk = await verifyChain(docDir, numbers, reading, probe, budget);
    if (walk.gone === null) return walk;
    const fresh = await listVersions(docDir);
    const gone = walk.gone;
    const above = fresh.filter((version) => version > gone);
    if (above.length > 0) {
      numbers = above;
      continue;
    }
    fullRestarts += 1;
    if (fullRestarts > maxFullRestarts || fresh.length === 0)
      throw new Error(`read v${gone}: version disappeared during verification`);
    numbers = fresh;
  }
}

/**
 * Go `VerifyChain`: oldest retained version first; every later one must record
 * `sha256-<hex of the previous file's bytes>`, and every one must pass the strict
 * reader and declare its own number. The oldest retained version is the root: its
 * own `previous-hash` is not checked. Returns each version's time and the first
 * problem (null when none), or `gone`: the first version that was no longer there.
 *
 * Versions are read one after another, each up to 1 MiB; reading one again
 * is taken from `budget` (readChain bounds the re-reads of every pass together); once
 * `reading.signal` aborts, the next version is not read and the check rejects
 * with the signal's reason.
 */
async function verifyChain(
  docDir: string,
  numbers: number[],
  reading: HistoryReading,
  probe: ChainReadProbe | undefined,
  budget: ReadBudget,
): Promise<{ infos: VersionInfo[]; chainError: string | null; gone: number | null }> {
  const { signal } = reading;
  const infos: VersionInfo[] = [];
  let previous: Buffer | null = null;
  let chainError: string | null = null;
  let formatError: string | null = null;
  for (const version of numbers) {
    signal?.throwIfAborted();
    if (version <= budget.highestRead) {
      if (budget.reReadsLeft === 0) throw new Error(`read v${version}: versions kept disappearing during verification`);
      budget.reReadsLeft -= 1;
    } else budget.highestRead = version;
    if (probe !== undefined) await probe(version);
    const file = await readVersionFile(docDir, version);
    if (file === null) return { infos, chainError: null, gone: version };
    infos.push({ version, modified: truncateToSecond(file.mtime) });
    if (previous !== null && chainError === null) chainError = checkLink(version, previous, file.raw);
    if (formatError === null) formatError = checkFormat(version, file.raw);
    previous = file.raw;
  }
  return { infos, chainError: chainError ?? formatError, gone: null };
}

function checkLink(version: number, previous: Buffer, raw: Buffer): string | null {
  const recorded = extractPreviousHash(raw);
  if (recorded === '') return `v${version} missing previous-hash`;
  const expected = `sha256-${storedEtag(previous)}`;
  return recorded === expected
    ? null
    : `v${version} chain broken: previous-hash mismatch (want ${expected}, got ${recorded})`;
}

function checkFormat(version: number, raw: Buffer): string | null {
  try {
    const header = inspectStoredVersion(raw);
    return header.version === version ? null : `v${version} stored version is ${header.version}`;
  } catch (err) {
    if (isStoreError(err, 'ERR_INTEGRITY')) return `v${version}: ${err.message}`;
    throw err;
  }
}
