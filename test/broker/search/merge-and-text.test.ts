import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  bestRowPerDocument,
  mergeWorldRows,
  parseLookupRows,
  parseSearchText,
  renderSearchText,
  type SearchText,
  type WorldRow,
} from '../../../src/broker/search/index.ts';
import { urlCell } from '../../../src/broker/search/search-text.ts';

const row = (world: string, path: string, rank: number, score?: number, anchor = ''): WorldRow => ({
  world,
  path,
  anchor,
  rank,
  importance: 0.5,
  title: path,
  tags: '',
  snippet: '',
  ...(score === undefined ? {} : { score }),
});
const names = (rows: WorldRow[]) => rows.map((r) => `${r.world}${r.path}`);

describe('merging world answers', () => {
  it('orders scored rows by score alone, whichever world they come from', () => {
    const { rows, ranking } = mergeWorldRows(
      [row('a', '/1', 0, 2), row('a', '/2', 1, 1), row('b', '/3', 0, 3)],
      new Map(),
    );
    assert.equal(ranking, 'score');
    assert.deepEqual(names(rows), ['b/3', 'a/1', 'a/2']);
  });

  it('breaks equal scores by world, path and anchor', () => {
    const { rows } = mergeWorldRows(
      [row('b', '/x', 0, 1), row('a', '/y', 0, 1), row('a', '/x', 1, 1, 'z'), row('a', '/x', 0, 1, 'b')],
      new Map(),
    );
    assert.deepEqual(
      rows.map((r) => `${r.world}${r.path}#${r.anchor}`),
      ['a/x#b', 'a/x#z', 'a/y#', 'b/x#'],
    );
  });

  it('interleaves unscored worlds by rank, world names breaking ties', () => {
    const { rows, ranking } = mergeWorldRows(
      [],
      new Map([
        ['go2', [row('go2', '/c', 0)]],
        ['go1', [row('go1', '/a', 0), row('go1', '/b', 1)]],
      ]),
    );
    assert.equal(ranking, 'rank');
    assert.deepEqual(names(rows), ['go1/a', 'go2/c', 'go1/b']);
  });

  it('treats the scored rows as one list beside each unscored world', () => {
    const { rows, ranking } = mergeWorldRows(
      [row('a', '/1', 0, 5), row('b', '/2', 0, 4)],
      new Map([['go', [row('go', '/g', 0)]]]),
    );
    assert.equal(ranking, 'mixed');
    assert.deepEqual(names(rows), ['a/1', 'go/g', 'b/2']);
  });

  it('keeps the first row of each document only', () => {
    const rows = [row('a', '/1', 0, 3, 'x'), row('a', '/1', 1, 2, 'y'), row('b', '/1', 0, 1, 'x')];
    assert.deepEqual(
      bestRowPerDocument(rows).map((r) => `${r.world}${r.path}#${r.anchor}`),
      ['a/1#x', 'b/1#x'],
    );
  });
});

describe('mark_search text', () => {
  const text: SearchText = {
    status: 'partial',
    worlds: 2,
    failed: [{ world: 'b', message: 'world b is unavailable' }],
    ranking: 'score',
    hits: [
      {
        url: 'mark://a/docs/pipes_and%20more.md#pipes_and-more',
        title: 'A | B › C',
        score: Math.PI,
        snippet: 'uses `code` and [links]',
      },
      { url: 'mark://a/go.md', title: 'Go', score: null, snippet: '' },
    ],
    nearest: [],
    notes: ['go: rows there contain every query word'],
  };

  it('reads back what it renders: hits, scores to two decimals, failures and notes', () => {
    const back = parseSearchText(renderSearchText('pipes | more', text));
    assert.deepEqual(back, { ...text, hits: [{ ...text.hits[0]!, score: 3.14 }, text.hits[1]!] });
  });

  it('renders the anchor unescaped after the escaped address, as a world does', () => {
    assert.equal(urlCell('mark://a/x_y.md#a_b'), 'mark://a/x\\_y.md#a_b');
    assert.equal(urlCell('mark://a/x_y.md'), 'mark://a/x\\_y.md');
  });

  it('renders and reads back the nearest titles of an empty answer, with the browse hint', () => {
    const empty: SearchText = {
      status: 'ok',
      worlds: 1,
      failed: [],
      hits: [],
      nearest: [{ url: 'mark://a/keys.md', title: 'Keyboard' }],
      notes: [],
    };
    const rendered = renderSearchText('kyeboard', empty);
    assert.match(
      rendered,
      /^status: ok\nworlds: 1\nsucceeded: 1\nfailed: 0\nmatches: 0\n\n# No document matches "kyeboard" in readable worlds\n\n## Nearest titles\n/,
    );
    assert.match(rendered, /\nbrowse instead: /);
    assert.deepEqual(parseSearchText(rendered), empty);
  });
});

describe('reading a world LOOKUP table', () => {
  const answer = (body: string, matches: string) => ({
    status: 'ok',
    metadata: { matches, match: 'body' },
    body: Buffer.from(body),
  });
  const header =
    '\n# Lookup matches for "q" in /\n\n| Path | Importance | Title | Tags | Snippet |\n|------|------------|-------|------|---------|\n';

  it('splits the unescaped anchor from an escaped path and unescapes the cells', () => {
    const rows = parseLookupRows(
      answer(`${header}| /a\\_b\\#c.md#sec_1 | 0.70 | A \\| B › Sec | x, y | s\\*t |\n`, '1'),
    );
    assert.deepEqual(rows, [
      {
        path: '/a_b#c.md',
        anchor: 'sec_1',
        importance: 0.7,
        title: 'A | B › Sec',
        tags: 'x, y',
        snippet: 's*t',
        rank: 0,
      },
    ]);
  });

  it('refuses a table whose rows do not match the matches count, or a bad importance', () => {
    assert.throws(() => parseLookupRows(answer(header, '1')), { code: 'ERR_MALFORMED_LOOKUP' });
    assert.throws(() => parseLookupRows(answer(`${header}| /a.md | 1.50 | A |  | s |\n`, '1')), /invalid importance/);
    assert.throws(() => parseLookupRows(answer(`${header}| a.md | 0.50 | A |  | s |\n`, '1')), /invalid path/);
    assert.throws(() => parseLookupRows(answer('no table here', '0')), /result table missing/);
  });
});
