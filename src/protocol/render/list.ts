import { escapeMarkdown, pathEscape } from '../escape.ts';

export type ListEntry = { name: string; kind: 'document' | 'directory' };

const truncationNote = '*...truncated, too many entries*';

/**
 * The LIST body (and the generated directory listing of FETCH):
 * `\n# Index of <dir/>\n\n` then one link per entry, directories with a trailing
 * slash, and a truncation note when more entries remain.
 */
export function renderList(dir: string, entries: readonly ListEntry[], complete: boolean): string {
  const heading = dir.endsWith('/') ? dir : `${dir}/`;
  let body = `\n# Index of ${escapeMarkdown(heading)}\n\n`;
  for (const entry of entries) {
    const slash = entry.kind === 'directory' ? '/' : '';
    body += `- [${escapeMarkdown(entry.name)}${slash}](${pathEscape(entry.name)}${slash})\n`;
  }
  if (!complete) body += `\n${truncationNote}\n`;
  return body;
}

/** An entry read back from a LIST page, with its absolute path (a directory's without the trailing `/`). */
export type ListedEntry = ListEntry & { path: string };

export type ListPage = {
  entries: ListedEntry[];
  /** Lines that look like entries but cannot be one: reported, never followed. */
  invalid: string[];
  complete: boolean;
  nextCursor: string | null;
};

const entryLine = /^- \[(?:\\.|[^\\\]])*\]\(([^()\s]*)\)$/;

/**
 * A LIST page (`renderList`'s output plus its `complete` and `next-cursor`
 * metadata) read back into entries. A destination that is not a single child
 * name (empty, `.`, `..`, a `/` or a control character once decoded) is
 * invalid: a listing must not lead outside its directory. A world before 0.19
 * sends no `complete`; then the truncation note decides.
 */
export function parseList(dir: string, body: string, metadata: Readonly<Record<string, string>>): ListPage {
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  const entries: ListedEntry[] = [];
  const invalid: string[] = [];
  for (const line of body.split('\n')) {
    if (!line.startsWith('- ')) continue;
    const dest = entryLine.exec(line)?.[1];
    const directory = dest?.endsWith('/') === true;
    const name = dest === undefined ? null : childName(directory ? dest.slice(0, -1) : dest);
    if (name === null) invalid.push(dest ?? line);
    else entries.push({ name, kind: directory ? 'directory' : 'document', path: base + name });
  }
  const declared = metadata.complete;
  const complete = declared === undefined ? !body.includes(truncationNote) : declared !== 'false';
  return { entries, invalid, complete, nextCursor: complete ? null : (metadata['next-cursor'] ?? null) };
}

function childName(encoded: string): string | null {
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
