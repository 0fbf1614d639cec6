import { canonicalPath } from '../../../protocol/paths.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import { bodyText } from '../body-text.ts';

/**
 * One LIST page read back into entries (Mark reference §2.2: each entry is
 * `- [<escaped name>](<path-escaped name>)`, directories with a trailing `/`;
 * `complete: false` plus `next-cursor` when more entries remain). Lines that
 * look like entries but cannot be read are reported, never silently dropped:
 * a crawl that skips them is incomplete.
 */
export type ListedEntry = { name: string; isDir: boolean; path: string };

export type ListingPage = {
  entries: ListedEntry[];
  invalid: string[];
  complete: boolean;
  nextCursor: string | null;
};

const entryLine = /^- \[(.*)\]\(([^()\s]*)\)$/;

export function parseListingPage(dir: string, response: MarkResponse): ListingPage {
  const entries: ListedEntry[] = [];
  const invalid: string[] = [];
  const body = bodyText(response.body);
  for (const line of body.split('\n')) {
    if (!line.startsWith('- ')) continue;
    const match = entryLine.exec(line);
    const entry = match ? entryFrom(dir, match[2]!) : null;
    if (entry === null) invalid.push(match ? match[2]! : line);
    else entries.push(entry);
  }
  const declared = response.metadata.complete;
  const complete = declared === undefined ? !body.includes('*...truncated') : declared !== 'false';
  return { entries, invalid, complete, nextCursor: complete ? null : (response.metadata['next-cursor'] ?? null) };
}

function entryFrom(dir: string, dest: string): ListedEntry | null {
  const isDir = dest.endsWith('/');
  let name: string;
  try {
    name = decodeURIComponent(isDir ? dest.slice(0, -1) : dest);
  } catch {
    return null;
  }
  if (name === '' || name === '.' || name === '..') return null;
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  return { name, isDir, path: canonicalPath(base + name) };
}
