import { escapeMarkdown, pathEscape } from '../escape.ts';

export type ListEntry = { name: string; kind: 'document' | 'directory' };

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
  if (!complete) body += '\n*...truncated, too many entries*\n';
  return body;
}
