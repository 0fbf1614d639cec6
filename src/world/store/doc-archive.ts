/**
 * ARCHIVE and unarchive (Mark SPEC §6.5; Go `ArchiveChecked`). Archive
 * state is operational, kept apart from the versions in `archive-state`: no
 * version, etag, mtime or chain link changes. A transition to the state a
 * document already has is a successful no-op. Callers hold the document's lock.
 */
import { effectiveArchived, readVersionFile, visibleVersion } from './doc-files.ts';
import { locateDocument, type StoreRoot } from './doc-reader.ts';
import { writeArchiveState } from './durable-fs.ts';
import { notFound } from './errors.ts';
import type { ArchiveCheck, ArchiveOutcome } from './types.ts';

export type ArchiveContext = StoreRoot & { archiveCheck?: ArchiveCheck | undefined };

export async function setArchived(ctx: ArchiveContext, reqPath: string, archived: boolean): Promise<ArchiveOutcome> {
  const loc = await locateDocument(ctx, reqPath);
  if (loc === null) throw notFound(reqPath);
  const version = await visibleVersion(loc);
  const tip = version === 0 ? null : await readVersionFile(loc.docDir, version);
  if (tip === null) throw notFound(reqPath);
  if ((await effectiveArchived(loc.docDir, tip.raw)) === archived) return { version, changed: false };
  await ctx.archiveCheck?.({ path: loc.canonical, archived });
  await writeArchiveState(loc.docDir, archived);
  return { version, changed: true };
}
