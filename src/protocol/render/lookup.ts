import { escapeCell, escapeMarkdown, formatFixed2 } from '../escape.ts';

export type LookupRow = {
  path: string;
  /** Section anchor for body matches; appended unescaped after `#`. */
  anchor?: string;
  importance: number;
  title: string;
  tags: readonly string[];
  /** Present in body mode only. */
  snippet?: string;
};

export type LookupMode = 'catalog' | 'body';

const headers: Record<LookupMode, string> = {
  catalog: '| Path | Importance | Title | Tags |\n|------|------------|-------|------|\n',
  body: '| Path | Importance | Title | Tags | Snippet |\n|------|------------|-------|------|---------|\n',
};

/** The LOOKUP body: a heading naming query and scope, then one table row per match. */
export function renderLookup(query: string, scope: string, mode: LookupMode, rows: readonly LookupRow[]): string {
  let body = `\n# Lookup matches for "${escapeMarkdown(query)}" in ${escapeMarkdown(scope)}\n\n${headers[mode]}`;
  for (const row of rows) {
    const anchor = row.anchor ? `#${row.anchor}` : '';
    const cells = [
      escapeCell(row.path) + anchor,
      formatFixed2(row.importance),
      escapeCell(row.title),
      escapeCell(row.tags.join(', ')),
    ];
    if (mode === 'body') cells.push(escapeCell(row.snippet ?? ''));
    body += `| ${cells.join(' | ')} |\n`;
  }
  return body;
}
