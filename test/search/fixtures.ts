/** Small documents shared by the search tests. */
import { SearchIndex } from '../../src/search/index.ts';
import type { SearchDoc } from '../../src/search/index.ts';

export function doc(id: string, fields: Partial<SearchDoc> = {}): SearchDoc {
  return { id, title: 'Untitled', tags: [], importance: 0.5, body: '', ...fields };
}

export const setupGuide = doc('/guide/setup.md', {
  title: 'Setup guide',
  tags: ['install'],
  body: [
    'Intro about the project.',
    '',
    '# Installing',
    'Run the installer with npm.',
    '',
    '## Linux',
    'Use apt to fetch build tools.',
    'The kernel matters here.',
    '',
    '## Windows',
    'Use WSL for tools.',
  ].join('\n'),
});

/** Filler documents, so a term held by a few documents has a positive IDF. */
export function filler(count: number): SearchDoc[] {
  return Array.from({ length: count }, (_, i) =>
    doc(`/filler/f${i}.md`, { title: `Filler ${i}`, body: `# Notes\nplain words number ${i}\n` }),
  );
}

export function indexOf(docs: SearchDoc[]): SearchIndex {
  const index = new SearchIndex();
  for (const d of docs) index.upsert(d);
  return index;
}

/** `path#anchor` per row, the way LOOKUP shows them. */
export function paths(rows: { id: string; anchor: string }[]): string[] {
  return rows.map((r) => (r.anchor === '' ? r.id : `${r.id}#${r.anchor}`));
}
