import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseResponse, type MarkResponse } from '../../src/protocol/response.ts';
import { parseList, renderList, type ListEntry } from '../../src/protocol/render/list.ts';
import { parseLookup, renderLookup, type LookupRow } from '../../src/protocol/render/lookup.ts';
import { parseVersions, renderVersions } from '../../src/protocol/render/versions.ts';
import {
  canonicalServer,
  mergeContentIndex,
  parseContentIndex,
  renderContentIndex,
} from '../../src/protocol/render/content-index.ts';

/**
 * What worlds answer, read back by the one parser beside each renderer:
 * render → parse gives the same rows, and the reference's own answers
 * (test/golden/mark, bytes from the Go server) parse to what they say.
 */
const golden = (name: string): MarkResponse =>
  parseResponse(readFileSync(new URL(`../golden/mark/${name}.golden`, import.meta.url)));
const text = (response: MarkResponse) => new TextDecoder().decode(response.body);

describe('LIST pages', () => {
  const entries: ListEntry[] = [
    { name: 'a b.md', kind: 'document' },
    { name: '[draft] *x*.md', kind: 'document' },
    { name: '100%', kind: 'directory' },
    { name: '日本語.md', kind: 'document' },
  ];

  it('round-trips every name, complete or not', () => {
    for (const complete of [true, false]) {
      const page = parseList('/docs', renderList('/docs', entries, complete), {});
      assert.deepEqual(
        page.entries.map(({ name, kind }) => ({ name, kind })),
        entries,
      );
      assert.deepEqual(
        page.entries.map((e) => e.path),
        ['/docs/a b.md', '/docs/[draft] *x*.md', '/docs/100%', '/docs/日本語.md'],
      );
      assert.equal(page.complete, complete);
      assert.deepEqual(page.invalid, []);
    }
  });

  it('reads the reference pages, cursor included', () => {
    const full = golden('09-list');
    const page = parseList('/docs/', text(full), full.metadata);
    assert.ok(page.entries.length > 0);
    assert.equal(page.complete, true);
    const partial = golden('10-list-page');
    const first = parseList('/docs/', text(partial), partial.metadata);
    assert.deepEqual(first.entries, [{ name: 'a.md', kind: 'document', path: '/docs/a.md' }]);
    assert.equal(first.complete, false);
    assert.equal(first.nextCursor, 'AQAABS9kb2NzYS5tZA');
  });

  it('refuses entries that would leave the directory', () => {
    const body = '- [up](..)\n- [sub](a%2Fb.md)\n- [bad](%zz)\n- [ok](ok.md)\n- not an entry\n';
    const page = parseList('/d/', body, { complete: 'true' });
    assert.deepEqual(page.invalid, ['..', 'a%2Fb.md', '%zz', '- not an entry']);
    assert.deepEqual(
      page.entries.map((e) => e.path),
      ['/d/ok.md'],
    );
  });
});

describe('LOOKUP tables', () => {
  const rows: LookupRow[] = [
    { path: '/a.md', importance: 0.7, title: 'Alpha | piped', tags: ['x', 'y'], snippet: 'one' },
    { path: '/b #c.md', anchor: 'sec-1', importance: 1, title: 'B', tags: [], snippet: 'a \\ b' },
  ];

  it('round-trips catalog and body tables', () => {
    for (const mode of ['catalog', 'body'] as const) {
      const parsed = parseLookup(renderLookup('q', '/', mode, rows), { matches: '2' });
      assert.deepEqual(
        parsed.map((r) => [r.path, r.anchor, r.importance, r.title, r.tags, r.snippet, r.rank]),
        rows.map((r, i) => [
          r.path,
          mode === 'body' ? (r.anchor ?? '') : (r.anchor ?? ''),
          r.importance,
          r.title,
          r.tags.join(', '),
          mode === 'body' ? r.snippet : '',
          i,
        ]),
      );
    }
  });

  it('reads the reference catalog and body answers', () => {
    const catalog = golden('13-lookup-catalog');
    assert.deepEqual(
      parseLookup(text(catalog), catalog.metadata).map((r) => [r.path, r.importance, r.title, r.tags]),
      [
        ['/docs/a.md', 0.7, 'Alpha', 'alpha, wire'],
        ['/docs/b.md', 0.4, 'Beta | piped', 'beta'],
      ],
    );
    const body = golden('14a-lookup-body');
    assert.deepEqual(
      parseLookup(text(body), body.metadata).map((r) => [r.path, r.anchor, r.snippet]),
      [['/docs/a.md', 'appended', 'More.']],
    );
    const empty = golden('14b-lookup-empty');
    assert.deepEqual(parseLookup(text(empty), empty.metadata), []);
  });

  it('refuses what no renderer writes', () => {
    const table = (importance: string) =>
      `| Path | Importance | Title | Tags |\n|---|---|---|---|\n| /a.md | ${importance} | A | |\n`;
    for (const bad of ['1.50', '+1e-1', '-0.1', 'NaN'])
      assert.throws(() => parseLookup(table(bad), { matches: '1' }), { code: 'ERR_MALFORMED_LOOKUP' }, bad);
    assert.throws(() => parseLookup(table('0.50'), { matches: '+1' }), { code: 'ERR_MALFORMED_LOOKUP' });
    assert.throws(() => parseLookup('no table', { matches: '0' }), /result table missing/);
  });
});

describe('VERSIONS', () => {
  it('round-trips, newest first', () => {
    const versions = [
      { version: 1, modified: new Date('2026-01-01T00:00:00Z') },
      { version: 2, modified: new Date('2026-01-02T03:04:05Z') },
    ];
    assert.deepEqual(parseVersions(renderVersions('/docs/a b.md', versions)), [...versions].reverse());
  });

  it('reads the reference history', () => {
    assert.deepEqual(
      parseVersions(text(golden('12-versions'))).map((v) => [v.version, v.modified.toISOString()]),
      [3, 2, 1].map((n) => [n, '2026-01-01T00:00:00.000Z']),
    );
  });

  it('refuses an entry it cannot read', () => {
    assert.throws(() => parseVersions('- [v2](%2Fa.md/v3) - 2026-01-01T00:00:00Z\n'), {
      code: 'ERR_MALFORMED_VERSIONS',
    });
  });
});

describe('content-hash index', () => {
  const hash = (c: string) => `sha256-${c.repeat(64)}`;
  const entries = [
    { hash: hash('a'), server: 'mark://team-a', path: '/a.md' },
    { hash: hash('b'), server: 'mark://team-a:7000', path: '/b.md' },
  ];

  it('round-trips', () => {
    assert.deepEqual(parseContentIndex(renderContentIndex('mark://team-a', new Date(0), entries)), entries);
  });

  it('skips a path with white space, as the reference reads its single-word cells', () => {
    const spaced = [...entries, { hash: hash('d'), server: 'mark://team-a', path: '/d e.md' }];
    assert.deepEqual(parseContentIndex(renderContentIndex('mark://team-a', new Date(0), spaced)), entries);
  });

  it('knows one server by every spelling', () => {
    for (const spelling of ['mark://Team-A', 'mark://team-a:6309', 'mark://team-a/', 'mark://team-a:6309/x'])
      assert.equal(canonicalServer(spelling), 'mark://team-a', spelling);
    assert.equal(canonicalServer('mark://team-a:7000'), 'mark://team-a:7000');
    const fresh = [{ hash: hash('c'), server: 'mark://team-a', path: '/c.md' }];
    assert.deepEqual(mergeContentIndex(entries, 'mark://TEAM-A:6309/', fresh), [entries[1], ...fresh]);
  });
});
