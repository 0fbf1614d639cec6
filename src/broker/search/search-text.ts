import { escapeCell, formatFixed2 } from '../../protocol/escape.ts';
import { splitTableRow as splitRow, unescapeCell } from '../../protocol/table-cells.ts';
import type { Ranking, WorldRow } from './merge-rows.ts';

/**
 * mark_search's answer: a short status block, then the ranked rows as a table,
 * or, when nothing matched, the nearest titles and how to browse (a zero-result
 * answer never dead-ends). The same text is what `demarkus-broker search` reads
 * back (parseSearchText), so the two are written and tested together.
 */
export type SearchHit = { url: string; title: string; score: number | null; snippet: string };
export type NearHit = { url: string; title: string };
export type SearchText = {
  status: 'ok' | 'partial';
  worlds: number;
  failed: { world: string; message: string }[];
  ranking?: Ranking;
  hits: SearchHit[];
  nearest: NearHit[];
  /** Notes for the reader: strict or catalog-only worlds, language hints. */
  notes: string[];
};

export const browseHint =
  "browse instead: mark_lookup_all with query '*' lists every catalogued document, mark_list mark://{world}/ shows one world's tree, mark_worlds names the worlds";

const resultsHeader = '| URL | Score | Title | Snippet |\n|-----|-------|-------|---------|\n';
const nearestHeader = '| URL | Title |\n|-----|-------|\n';
const failuresHeader = '| World | Error |\n|-------|-------|\n';

export function renderSearchText(query: string, text: SearchText): string {
  let out = `status: ${text.status}\nworlds: ${text.worlds}\nsucceeded: ${text.worlds - text.failed.length}\nfailed: ${text.failed.length}\nmatches: ${text.hits.length}\n`;
  if (text.ranking !== undefined && text.hits.length > 0) out += `ranking: ${text.ranking}\n`;
  if (text.hits.length > 0) {
    out += `\n# Search results for "${escapeCell(query)}" across readable worlds\n\n${resultsHeader}`;
    for (const hit of text.hits)
      out += `| ${urlCell(hit.url)} | ${hit.score === null ? '-' : formatFixed2(hit.score)} | ${escapeCell(hit.title)} | ${escapeCell(hit.snippet)} |\n`;
  } else {
    out += `\n# No document matches "${escapeCell(query)}" in readable worlds\n`;
    if (text.nearest.length > 0) {
      out += `\n## Nearest titles\n\n${nearestHeader}`;
      for (const near of text.nearest) out += `| ${urlCell(near.url)} | ${escapeCell(near.title)} |\n`;
    }
  }
  if (text.notes.length > 0 || text.hits.length === 0) out += '\n';
  for (const note of text.notes) out += `note: ${oneLine(note)}\n`;
  if (text.hits.length === 0) out += `${browseHint}\n`;
  if (text.failed.length > 0) {
    out += `\n## World failures\n\n${failuresHeader}`;
    for (const f of text.failed) out += `| ${escapeCell(f.world)} | ${escapeCell(f.message)} |\n`;
  }
  return out;
}

/** Reads renderSearchText's output back; unknown lines are skipped, so later additions do not break old readers. */
export function parseSearchText(textIn: string): SearchText {
  const lines = textIn.replaceAll('\r\n', '\n').split('\n');
  const head = new Map<string, string>();
  for (const line of lines) {
    if (line === '') break;
    const at = line.indexOf(': ');
    if (at > 0) head.set(line.slice(0, at), line.slice(at + 2));
  }
  const out: SearchText = {
    status: head.get('status') === 'partial' ? 'partial' : 'ok',
    worlds: Number(head.get('worlds') ?? 0),
    failed: [],
    hits: [],
    nearest: [],
    notes: [],
  };
  const ranking = head.get('ranking');
  if (ranking === 'score' || ranking === 'rank' || ranking === 'mixed') out.ranking = ranking;
  let table: 'results' | 'nearest' | 'failures' | null = null;
  for (const line of lines) {
    const cells = splitRow(line);
    if (cells === null) {
      table = null;
      if (line.startsWith('note: ')) out.notes.push(line.slice('note: '.length));
      continue;
    }
    const kind = tableKind(cells);
    if (kind !== null) table = kind;
    else if (!cells.every((c) => /^-{3,}$/.test(c))) addRow(out, table, cells.map(unescapeCell));
  }
  return out;
}

function tableKind(cells: string[]): 'results' | 'nearest' | 'failures' | null {
  const names = cells.join('|').toLowerCase();
  if (names === 'url|score|title|snippet') return 'results';
  if (names === 'url|title') return 'nearest';
  if (names === 'world|error') return 'failures';
  return null;
}

function addRow(out: SearchText, table: 'results' | 'nearest' | 'failures' | null, cells: string[]): void {
  const [a = '', b = '', c = '', d = ''] = cells;
  if (table === 'results' && cells.length === 4)
    out.hits.push({ url: a, score: b === '-' ? null : Number(b), title: c, snippet: d });
  else if (table === 'nearest' && cells.length === 2) out.nearest.push({ url: a, title: b });
  else if (table === 'failures' && cells.length === 2) out.failed.push({ world: a, message: b });
}

/** A search row as a hit, addressed `mark://{world}{path}#anchor` by the caller's URL builder. */
export function hitOf(row: WorldRow, url: (row: WorldRow) => string): SearchHit {
  return { url: url(row), title: row.title, score: row.score ?? null, snippet: row.snippet };
}

/**
 * A URL cell as the world writes a LOOKUP path cell (Mark SPEC §6.7): the
 * address escaped, the `#anchor` appended as is. A `#` inside the path is
 * already percent-encoded in our URLs, so the last `#` starts the anchor.
 */
export function urlCell(url: string): string {
  const at = url.lastIndexOf('#');
  return at < 0 ? escapeCell(url) : escapeCell(url.slice(0, at)) + url.slice(at);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
