import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Catalog } from '../../../src/world/catalog/catalog.ts';
import { entryFromDocument } from '../../../src/world/catalog/entry.ts';
import type { CatalogEntry } from '../../../src/world/catalog/entry.ts';
import { parseFilter } from '../../../src/world/catalog/filter.ts';
import { parseLookupQuery } from '../../../src/world/catalog/query.ts';
import type { LookupHit } from '../../../src/world/catalog/result-sink.ts';

const pinned = new Date('2026-01-01T00:00:00Z');

/** A document as the store would hand it over; the body's H1 is the path unless given. */
function doc(
  path: string,
  metadata: Record<string, string> = {},
  options: { body?: string; modified?: Date } = {},
): CatalogEntry {
  return entryFromDocument({
    path,
    metadata,
    body: options.body ?? `# ${path}\n`,
    modified: options.modified ?? pinned,
  });
}

function lookup(
  catalog: Catalog,
  query: string,
  options: { scope?: string; filter?: string; limit?: number; allow?: (path: string) => boolean } = {},
): LookupHit[] {
  const { scope, limit, allow } = options;
  return catalog.lookup({
    ...parseLookupQuery(query),
    filter: parseFilter(options.filter),
    ...(scope && { scope }),
    ...(limit && { limit }),
    ...(allow && { allow }),
  });
}

const paths = (hits: readonly LookupHit[]) => hits.map((hit) => hit.path);

describe('catalog matching (Go `catalog/catalog.go`)', () => {
  const catalog = new Catalog([
    doc('/docs/auth.md', { tags: 'auth, go', title: 'Auth design', importance: '0.9' }),
    doc('/docs/misc.md', { tags: 'misc', title: 'Unrelated' }),
  ]);

  it('finds the document tagged or titled with the term, and not the other', () => {
    const hits = lookup(catalog, 'auth');
    assert.deepEqual(paths(hits), ['/docs/auth.md']);
    assert.equal(hits[0]!.importance, 0.9);
    assert.equal(hits[0]!.score, 1);
  });

  it('matches tags exactly but titles by substring, both case-insensitively', () => {
    assert.deepEqual(paths(lookup(catalog, 'AUTH')), ['/docs/auth.md']);
    assert.deepEqual(paths(lookup(catalog, 'sign')), ['/docs/auth.md']);
    assert.deepEqual(paths(lookup(catalog, 'mis')), [], 'a tag prefix is not a tag');
    assert.deepEqual(paths(lookup(catalog, 'kubernetes')), []);
  });

  it('scores the distinct terms matched, so two terms outrank one regardless of importance', () => {
    const ranked = new Catalog([
      doc('/one-term.md', { tags: 'auth', importance: '0.99' }),
      doc('/two-terms.md', { tags: 'auth, middleware', importance: '0.1' }),
      doc('/also-one.md', { tags: 'middleware', importance: '0.5' }),
    ]);
    const hits = lookup(ranked, 'auth middleware auth');
    assert.deepEqual(paths(hits), ['/two-terms.md', '/one-term.md', '/also-one.md']);
    assert.deepEqual(
      hits.map((hit) => hit.score),
      [2, 1, 1],
    );
  });

  it('treats `*` among other terms as a literal term, not as match-all', () => {
    const star = new Catalog([
      doc('/a.md', { tags: 'go' }),
      doc('/b.md', { title: 'A * B' }),
      doc('/c.md', { tags: 'rust' }),
    ]);
    assert.deepEqual(paths(lookup(star, '* go')), ['/a.md', '/b.md']);
  });
});

describe('ordering and limit (cases 44 and 47)', () => {
  it('returns the limit in importance order among equal scores (case 44)', () => {
    const catalog = new Catalog([
      doc('/c.md', { tags: 'go', importance: '0.7' }),
      doc('/a.md', { tags: 'go', importance: '0.9' }),
      doc('/b.md', { tags: 'go', importance: '0.8' }),
    ]);
    assert.deepEqual(paths(lookup(catalog, 'go', { limit: 2 })), ['/a.md', '/b.md']);
  });

  it('breaks importance ties by newer first, then by path', () => {
    const older = new Date('2025-01-01T00:00:00Z');
    const catalog = new Catalog([
      doc('/b.md', { tags: 'go' }),
      doc('/c.md', { tags: 'go' }, { modified: older }),
      doc('/a.md', { tags: 'go' }),
    ]);
    assert.deepEqual(paths(lookup(catalog, 'go')), ['/a.md', '/b.md', '/c.md']);
  });

  it('orders paths by code point, as Go does', () => {
    const catalog = new Catalog([doc('/a/\u{1f600}.md', { tags: 'go' }), doc('/a/\uff5e.md', { tags: 'go' })]);
    assert.deepEqual(paths(lookup(catalog, 'go')), ['/a/\uff5e.md', '/a/\u{1f600}.md']);
  });

  it('lists every document for `*`, most important first, with score 0 (case 47)', () => {
    const catalog = new Catalog([
      doc('/note.md', { tags: 'misc', title: 'Note', importance: '0.3' }),
      doc('/hub.md', { tags: 'hub', title: 'Hub', importance: '0.9' }),
    ]);
    const hits = lookup(catalog, '*');
    assert.deepEqual(paths(hits), ['/hub.md', '/note.md']);
    assert.deepEqual(
      hits.map((hit) => hit.score),
      [0, 0],
    );
  });

  it('narrows `*` by scope and filter like any lookup', () => {
    const catalog = new Catalog([
      doc('/low.md', { tags: 'go', importance: '0.2' }),
      doc('/docs/deep.md', { tags: 'go', importance: '0.7' }),
      doc('/mid.md', { tags: 'rust' }),
    ]);
    assert.deepEqual(paths(lookup(catalog, '*', { scope: '/docs/' })), ['/docs/deep.md']);
    assert.deepEqual(paths(lookup(catalog, '*', { filter: 'tag=go' })), ['/docs/deep.md', '/low.md']);
  });

  it('refuses a limit that is not an integer ≥ 1 (the handler validates first)', () => {
    const catalog = new Catalog([doc('/a.md', { tags: 'go' })]);
    assert.throws(() => catalog.lookup({ terms: ['go'], limit: 0 }), RangeError);
    assert.throws(() => catalog.lookup({ terms: ['go'], limit: 1.5 }), RangeError);
  });
});

describe('plans that change strategy mid-way', () => {
  // Tags A and B each cover half the catalog, so documents with both look dense and the
  // catalog first walks the rank order for them; but only 3 of them rank early, so the
  // walk runs out of budget and bulk scoring takes over for the rest of that level.
  const entries = Array.from({ length: 2000 }, (_, i) => {
    const both = i === 10 || i === 50 || i === 100 || (i >= 1500 && i < 1520);
    const tags = both ? 'alpha, beta' : i < 1000 ? 'alpha' : 'beta';
    return doc(`/d/${String(i).padStart(4, '0')}.md`, { tags, importance: String(1 - i / 2000) });
  });
  const catalog = new Catalog(entries);

  it('returns each full-score row once, in rank order, before any partial match', () => {
    const hits = lookup(catalog, 'alpha beta', { limit: 10 });
    assert.deepEqual(paths(hits), [
      '/d/0010.md',
      '/d/0050.md',
      '/d/0100.md',
      ...Array.from({ length: 7 }, (_, i) => `/d/${1500 + i}.md`),
    ]);
    assert.ok(hits.every((hit) => hit.score === 2));
  });

  it('continues into score 1 after the last full-score row', () => {
    const hits = lookup(catalog, 'alpha beta', { limit: 25 });
    assert.deepEqual(
      hits.map((hit) => hit.score),
      [...new Array(23).fill(2), 1, 1],
    );
    assert.deepEqual(paths(hits).slice(23), ['/d/0000.md', '/d/0001.md']);
  });
});

describe('scope (Go `catalog/catalog.go`)', () => {
  const catalog = new Catalog([
    doc('/docs/a.md', { tags: 'go' }),
    doc('/docs/sub/b.md', { tags: 'go' }),
    doc('/other/c.md', { tags: 'go' }),
    doc('/docs2/d.md', { tags: 'go' }),
  ]);

  it('keeps the subtree, with or without a trailing slash', () => {
    assert.deepEqual(paths(lookup(catalog, 'go', { scope: '/docs' })), ['/docs/a.md', '/docs/sub/b.md']);
    assert.deepEqual(paths(lookup(catalog, 'go', { scope: '/docs/' })), ['/docs/a.md', '/docs/sub/b.md']);
    assert.deepEqual(paths(lookup(catalog, 'go', { scope: '/docs/sub' })), ['/docs/sub/b.md']);
  });

  it('does not match a sibling by raw prefix', () => {
    assert.deepEqual(paths(lookup(catalog, 'go', { scope: '/oth' })), []);
  });
});

describe('per-row read authorization before the limit (case 45)', () => {
  const catalog = new Catalog([
    doc('/private/secret.md', { tags: 'auth', title: 'Secret', importance: '0.9' }),
    doc('/public/doc.md', { tags: 'auth', title: 'Public', importance: '0.5' }),
    doc('/public/more.md', { tags: 'auth', title: 'More', importance: '0.4' }),
  ]);
  const publicOnly = (path: string) => !path.startsWith('/private/');

  it('hides a denied row completely and lets the next visible row take its place', () => {
    const hits = lookup(catalog, 'auth', { limit: 1, allow: publicOnly });
    assert.deepEqual(paths(hits), ['/public/doc.md']);
    assert.ok(!JSON.stringify(hits).includes('Secret'));
  });

  it('shows the row to a caller allowed to read it', () => {
    assert.deepEqual(paths(lookup(catalog, 'auth', { limit: 2, allow: () => true })), [
      '/private/secret.md',
      '/public/doc.md',
    ]);
  });

  it('asks about rows in rank order and stops once the limit is filled', () => {
    const asked: string[] = [];
    const allow = (path: string) => {
      asked.push(path);
      return publicOnly(path);
    };
    lookup(catalog, 'auth', { limit: 1, allow });
    assert.deepEqual(asked, ['/private/secret.md', '/public/doc.md']);
  });

  it('fails the lookup when allow throws (an auth error other than a denial)', () => {
    assert.throws(
      () =>
        lookup(catalog, 'auth', {
          allow: () => {
            throw new Error('token store broken');
          },
        }),
      /token store broken/,
    );
  });

  it('applies the 1000-row cap before authorization: allowed rows past it are not reached', () => {
    const many = new Catalog(
      Array.from({ length: 1005 }, (_, i) =>
        doc(`/d/${String(i).padStart(4, '0')}.md`, { tags: 'go', importance: '0.5' }),
      ),
    );
    const allowAfter = (first: number) => (path: string) => Number(path.slice(3, 7)) >= first;
    assert.deepEqual(paths(lookup(many, 'go', { limit: 10, allow: allowAfter(995) })), [
      '/d/0995.md',
      '/d/0996.md',
      '/d/0997.md',
      '/d/0998.md',
      '/d/0999.md',
    ]);
    assert.deepEqual(paths(lookup(many, '*', { limit: 10, allow: allowAfter(1000) })), []);
    assert.equal(lookup(many, 'go', { limit: 1000 }).length, 1000);
  });
});

describe('catalog sync (case 46)', () => {
  it('finds a published document by its H1-derived title', () => {
    const catalog = new Catalog();
    catalog.upsert(doc('/auth.md', { tags: 'middleware,go' }, { body: '# Auth Middleware\n' }));
    const hits = lookup(catalog, 'middleware');
    assert.deepEqual(paths(hits), ['/auth.md']);
    assert.equal(hits[0]!.title, 'Auth Middleware');
  });

  it('drops a removed (archived) document', () => {
    const catalog = new Catalog([doc('/auth.md', { tags: 'middleware' })]);
    assert.equal(catalog.remove('/auth.md'), true);
    assert.equal(lookup(catalog, 'middleware').length, 0);
    assert.equal(catalog.size, 0);
    assert.equal(catalog.remove('/auth.md'), false);
  });

  it('replaces an entry on upsert: old tags stop matching, new ones match, size stays', () => {
    const catalog = new Catalog([doc('/auth.md', { tags: 'rbac,go', importance: '0.9' })]);
    catalog.upsert(doc('/auth.md', { tags: 'oauth', importance: '0.2' }, { body: '# Tokens\n' }));
    assert.equal(catalog.size, 1);
    assert.equal(lookup(catalog, 'rbac').length, 0);
    assert.equal(lookup(catalog, 'auth').length, 0, 'the old H1 is gone too');
    assert.deepEqual(
      lookup(catalog, 'oauth').map((hit) => [hit.path, hit.importance]),
      [['/auth.md', 0.2]],
    );
  });

  it('keeps an upserted document matched under the tags the store merged in (APPEND)', () => {
    const catalog = new Catalog([
      doc('/auth.md', { tags: 'rbac,go', importance: '0.9' }, { body: '# Auth Middleware\n' }),
    ]);
    catalog.upsert(
      doc(
        '/auth.md',
        { tags: 'rbac,go', importance: '0.9', agent: 'claude' },
        { body: '# Auth Middleware\n\n## More\n' },
      ),
    );
    const hits = lookup(catalog, 'rbac');
    assert.equal(hits.length, 1);
    assert.equal(hits[0]!.metadata.agent, 'claude');
  });

  it('canonicalizes paths on upsert, get and remove', () => {
    const catalog = new Catalog();
    catalog.upsert(doc('/docs//a.md/', { tags: 'go' }));
    assert.equal(catalog.get('/docs/a.md')?.path, '/docs/a.md');
    assert.deepEqual(paths(lookup(catalog, 'go')), ['/docs/a.md']);
    assert.equal(catalog.remove('/docs/./a.md'), true);
  });

  it('lists its entries and answers get for a catalogued path only', () => {
    const catalog = new Catalog([doc('/a.md', { tags: 'go' }), doc('/b.md')]);
    assert.deepEqual([...catalog.entries()].map((entry) => entry.path).sort(), ['/a.md', '/b.md']);
    assert.equal(catalog.get('/a.md')?.tags[0], 'go');
    assert.equal(catalog.get('/missing.md'), undefined);
  });

  it('lets the last duplicate path win when built in bulk', () => {
    const catalog = new Catalog([doc('/a.md', { tags: 'old' }), doc('/a.md', { tags: 'new' })]);
    assert.equal(catalog.size, 1);
    assert.equal(lookup(catalog, 'old').length, 0);
    assert.equal(lookup(catalog, 'new').length, 1);
  });

  it('refuses an entry with an invalid modified time', () => {
    const catalog = new Catalog();
    assert.throws(() => catalog.upsert({ ...doc('/a.md'), modified: new Date(Number.NaN) }), TypeError);
    assert.equal(catalog.size, 0);
  });

  it('refuses to be used from inside allow, and stays usable afterwards', () => {
    const catalog = new Catalog([doc('/a.md', { tags: 'go' })]);
    const reenter = () => {
      catalog.remove('/a.md');
      return true;
    };
    assert.throws(() => lookup(catalog, 'go', { allow: reenter }), /re-entered/);
    assert.equal(lookup(catalog, 'go').length, 1);
  });
});
