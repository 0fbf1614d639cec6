/**
 * The indexed catalog must answer exactly what a linear scan written straight
 * from Go `catalog/catalog.go` answers, in the same order, for random catalogs, queries,
 * scopes, filters, read-auth predicates and limits, also after random upserts
 * and removals. Whatever plan the catalog picks (walk, heap, subtree), only
 * its cost may differ.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Catalog } from '../../../src/world/catalog/catalog.ts';
import type { LookupRequest } from '../../../src/world/catalog/catalog.ts';
import { entryFromDocument } from '../../../src/world/catalog/entry.ts';
import type { CatalogEntry } from '../../../src/world/catalog/entry.ts';
import { matchesFilter, parseFilter } from '../../../src/world/catalog/filter.ts';
import { compareCodePoints, foldKey } from '../../../src/world/catalog/go-text.ts';
import { goToLower } from '../../../src/protocol/go-strings.ts';
import { lookupTerms } from '../../../src/protocol/lookup-query.ts';
import { normalizeScope } from '../../../src/world/catalog/scope.ts';
import { generateCorpus, seededRandom } from './corpus.ts';

/** The spec, as a scan: scope, filter, score, sort, first 1000, allow, limit. */
function linearLookup(entries: Iterable<CatalogEntry>, request: LookupRequest): { path: string; score: number }[] {
  const scope = normalizeScope(request.scope ?? '/');
  const terms = lookupTerms((request.terms ?? []).join(' '));
  if (request.matchAll !== true && terms.length === 0) return [];
  const rows: { entry: CatalogEntry; score: number }[] = [];
  for (const entry of entries) {
    const underScope = scope === '/' || entry.path === scope || entry.path.startsWith(`${scope}/`);
    if (!underScope || !matchesFilter(entry, request.filter ?? [])) continue;
    const title = goToLower(entry.title);
    const score =
      request.matchAll === true
        ? 0
        : terms.filter((t) => entry.tags.some((tag) => foldKey(tag) === foldKey(t)) || title.includes(t)).length;
    if (request.matchAll === true || score > 0) rows.push({ entry, score });
  }
  rows.sort(
    (a, b) =>
      b.score - a.score ||
      Math.sign(b.entry.importance - a.entry.importance) ||
      Math.sign(b.entry.modified.getTime() - a.entry.modified.getTime()) ||
      compareCodePoints(a.entry.path, b.entry.path),
  );
  const allow = request.allow ?? (() => true);
  return rows
    .slice(0, 1000)
    .filter((row) => allow(row.entry.path))
    .slice(0, request.limit ?? 10)
    .map((row) => ({ path: row.entry.path, score: row.score }));
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

// A small universe with many collisions: equal importance and times, tricky case folding, code point order.
const words = [
  'Auth',
  'auth',
  'Middleware',
  'GO',
  'gopher',
  'Straße',
  'ΣΊΣΥΦΟΣ',
  'İstanbul',
  'ıi',
  '\u212aelvin',
  'naïve',
  'a*b',
  '*',
  'x',
  'xy',
  'xyz',
  'Go-Lang',
  '😀',
];
const spaces = [' ', '  ', '\u3000', '\u00a0', '\t'];
const tags = [
  'go',
  'Go',
  'GO',
  'auth',
  '\u212a',
  'k',
  '\u017f',
  's',
  'σ',
  'ς',
  'Σ',
  'ß',
  'ẞ',
  'ı',
  'I',
  'i',
  'x',
  'middleware',
  'go lang',
];
const dirs = ['/a', '/a/b', '/b', '/ab', '/a/😀', '/é', ''];
const names = ['x.md', 'y.md', '\uff5e.md', '\u{1f600}.md', 'Z.md', 'a b.md'];
const times = [0, 1, 1000, 1001, 86_400_000].map((ms) => new Date(Date.UTC(2025, 5, 1) + ms));
const termPool = [
  'auth',
  'AUTH',
  'middle',
  'go',
  'o',
  'xy',
  'x',
  'straße',
  'σ',
  'ς',
  'σίσυφοσ',
  'k',
  'kelvin',
  's',
  'ß',
  'i',
  'ı',
  'istanbul',
  '*',
  'a*b',
  '😀',
  'nothing',
  'go-lang',
  'lang',
];
const filterPool = [
  '',
  'tag=GO',
  'tag=ſ',
  'tag=k',
  'project=broker',
  'type=note',
  'modified-after=2025-06-01T00:00:00.5Z',
  'modified-before=2025-06-01T00:00:01Z',
  'tag=go,project=universe',
  'tag=absent',
];
const scopePool = ['/', '/a', '/a/', '/a/b', '/ab', '/nope', '/x.md', '/a/😀', ''];

function randomEntry(random: () => number): CatalogEntry {
  const title = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, words)).join(
    pick(random, spaces),
  );
  const metadata: Record<string, string> = {
    tags: Array.from({ length: Math.floor(random() * 3) }, () => pick(random, tags)).join(','),
    project: pick(random, ['broker', 'universe']),
    type: pick(random, ['Note', 'note']),
    importance: pick(random, ['0', '0.3', '0.5', '0.9', '1', '']),
  };
  if (random() < 0.5) metadata.title = title;
  return entryFromDocument({
    path: `${pick(random, dirs)}/${pick(random, names)}`,
    body: `# ${title}\n`,
    metadata,
    modified: pick(random, times),
  });
}

function randomRequest(random: () => number, paths: readonly string[]): LookupRequest {
  const denied = new Set(paths.filter(() => random() < 0.25));
  const matchAll = random() < 0.2;
  return {
    matchAll,
    terms: Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, termPool)),
    scope: pick(random, scopePool),
    filter: parseFilter(pick(random, filterPool)),
    limit: pick(random, [1, 2, 3, 10, 1000]),
    ...(random() < 0.5 && { allow: (path: string) => !denied.has(path) }),
  };
}

function assertSameAnswer(
  catalog: Catalog,
  model: Map<string, CatalogEntry>,
  request: LookupRequest,
  context: string,
): void {
  const got = catalog.lookup(request).map((hit) => ({ path: hit.path, score: hit.score }));
  assert.deepEqual(got, linearLookup(model.values(), request), context);
}

describe('indexed lookup equals the linear scan of the spec', () => {
  it('on small random catalogs with tricky text, under random upserts and removals', () => {
    const random = seededRandom(20_260_101);
    for (let round = 0; round < 60; round++) {
      const initial = Array.from({ length: Math.floor(random() * 80) }, () => randomEntry(random));
      const catalog = new Catalog(initial);
      const model = new Map(initial.map((entry) => [entry.path, entry]));
      for (let step = 0; step < 40; step++) {
        const roll = random();
        if (roll < 0.25) {
          const entry = randomEntry(random);
          catalog.upsert(entry);
          model.set(entry.path, entry);
        } else if (roll < 0.35 && model.size > 0) {
          const path = pick(random, [...model.keys()]);
          assert.equal(catalog.remove(path), true);
          model.delete(path);
        }
        assertSameAnswer(catalog, model, randomRequest(random, [...model.keys()]), `round ${round} step ${step}`);
      }
      assert.equal(catalog.size, model.size);
    }
  });

  it('on a realistic corpus large enough for every plan (walks, heaps, subtrees, the 1000 cap)', () => {
    const random = seededRandom(7);
    const corpus = generateCorpus(4000, { seed: 11, areas: 6 });
    const entries = corpus.documents.map(entryFromDocument);
    const catalog = new Catalog(entries);
    const model = new Map(entries.map((entry) => [entry.path, entry]));
    const vocabulary = [...corpus.tags.slice(0, 30), ...corpus.words.slice(0, 60), 'ka', 'ren', 'o', 'de', 'topic-3'];
    const dense = [...corpus.tags.slice(0, 4), ...corpus.words.slice(0, 4)];
    const scopes = ['/', '/area-1', '/area-2/sub-3', '/area-5/sub-0/', '/area-9'];
    const filters = [
      '',
      'tag=go',
      'tag=auth',
      'project=broker',
      'type=ADR',
      'modified-after=2025-01-01',
      'tag=topic-7,modified-before=2025-06-01',
    ];
    for (let step = 0; step < 400; step++) {
      if (step % 10 === 9) {
        const victim = pick(random, [...model.keys()]);
        catalog.remove(victim);
        model.delete(victim);
        const fresh = entryFromDocument({
          ...pick(random, corpus.documents),
          path: `/area-${step % 6}/new-${step}.md`,
        });
        catalog.upsert(fresh);
        model.set(fresh.path, fresh);
      }
      const denied = new Set([...model.keys()].filter(() => random() < 0.1));
      const request: LookupRequest = {
        matchAll: random() < 0.15,
        terms: Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
          pick(random, random() < 0.5 ? dense : vocabulary),
        ),
        scope: pick(random, scopes),
        filter: parseFilter(pick(random, filters)),
        limit: pick(random, [1, 10, 50, 1000]),
        ...(random() < 0.4 && { allow: (path: string) => !denied.has(path) }),
      };
      assertSameAnswer(
        catalog,
        model,
        request,
        `step ${step}: ${JSON.stringify({ ...request, allow: request.allow !== undefined })}`,
      );
    }
  });
});
