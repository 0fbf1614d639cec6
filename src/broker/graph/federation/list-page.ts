import { Status } from '../../../protocol/status.ts';
import type { MarkResponse } from '../../../protocol/response.ts';

/**
 * One LIST page as the world renders it (Mark reference §2.2): lines
 * `- [<escaped name>](<PathEscape(name)>)`, directories with a trailing `/`,
 * plus `complete` and `next-cursor` metadata. Entries come back as absolute
 * paths; destinations that are not a single child name are reported as
 * invalid rather than followed (a listing must not lead outside its directory).
 */
export type ListEntry = { path: string; directory: boolean };
export type ListPage = { entries: ListEntry[]; invalid: string[]; complete: boolean; nextCursor: string | null };

const entryLine = /^- \[(?:\\.|[^\\\]])*\]\(([^()\s]*)\)$/;

export function parseListPage(dir: string, response: MarkResponse): ListPage {
  if (response.status !== Status.Ok) throw new Error(`LIST ${dir}: ${response.status}`);
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  const entries: ListEntry[] = [];
  const invalid: string[] = [];
  for (const line of Buffer.from(response.body).toString('utf8').split('\n')) {
    const m = entryLine.exec(line);
    if (m === null) continue;
    const dest = m[1]!;
    const directory = dest.endsWith('/');
    const name = decodeName(directory ? dest.slice(0, -1) : dest);
    if (name === null) invalid.push(dest);
    else entries.push({ path: base + name, directory });
  }
  // Worlds before 0.19 send one page and no `complete`.
  const complete = response.metadata.complete !== 'false';
  const nextCursor = complete ? null : (response.metadata['next-cursor'] ?? null);
  return { entries, invalid, complete, nextCursor };
}

function decodeName(encoded: string): string | null {
  let name: string;
  try {
    name = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  return name === '' || name === '.' || name === '..' || name.includes('/') || /[\u0000-\u001f\u007f]/.test(name)
    ? null
    : name;
}
