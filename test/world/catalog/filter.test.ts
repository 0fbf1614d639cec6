import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogEntry } from '../../../src/world/catalog/entry.ts';
import { FilterError } from '../../../src/world/catalog/errors.ts';
import { matchesFilter, parseFilter } from '../../../src/world/catalog/filter.ts';
import { parseFilterInstant } from '../../../src/world/catalog/filter-time.ts';

// Mark SPEC §8 case 42 and filter_test.go: the document the predicate table runs against.
const doc: CatalogEntry = {
  path: '/docs/a.md',
  title: 'A',
  tags: ['go', 'auth'],
  importance: 0.5,
  modified: new Date('2025-06-01T00:00:00Z'),
  metadata: { project: 'broker', type: 'note' },
};

function matches(filter: string, entry: CatalogEntry = doc): boolean {
  return matchesFilter(entry, parseFilter(filter));
}

function assertFilterError(filter: string, code: string, message: string): void {
  assert.throws(
    () => parseFilter(filter),
    (err: unknown) => {
      assert.ok(err instanceof FilterError);
      assert.equal(err.code, code);
      assert.equal(err.message, message);
      return true;
    },
  );
}

describe('parseFilter (Go `catalog/filter.go`)', () => {
  it('accepts the valid forms of case 42', () => {
    for (const filter of [
      'project=broker',
      'project=broker,type=note',
      'tag=go',
      'modified-after=2025-01-01',
      'modified-before=2025-01-01T00:00:00Z',
    ]) {
      assert.ok(parseFilter(filter).length > 0, filter);
    }
  });

  it('reads an empty or blank filter as no predicates, and skips empty clauses', () => {
    assert.deepEqual(parseFilter(undefined), []);
    assert.deepEqual(parseFilter('  '), []);
    assert.equal(parseFilter(' , project=broker ,, ').length, 1);
  });

  it("refuses a clause without =, key or value with Go's message", () => {
    assertFilterError('project', 'ERR_LOOKUP_MALFORMED_FILTER', 'malformed filter clause "project"');
    assertFilterError('=broker', 'ERR_LOOKUP_MALFORMED_FILTER', 'malformed filter clause "=broker"');
    assertFilterError('project=', 'ERR_LOOKUP_MALFORMED_FILTER', 'malformed filter clause "project="');
    assertFilterError('type=note, project = ', 'ERR_LOOKUP_MALFORMED_FILTER', 'malformed filter clause "project ="');
  });

  it("quotes the clause as Go's %q does", () => {
    assertFilterError(
      'a"b\\c\u00a0d\u0001e',
      'ERR_LOOKUP_MALFORMED_FILTER',
      'malformed filter clause "a\\"b\\\\c\\u00a0d\\x01e"',
    );
  });

  it("refuses an unparseable date with Go's message", () => {
    assertFilterError(
      'modified-after=not-a-date',
      'ERR_LOOKUP_FILTER_DATE',
      'filter modified-after: invalid date "not-a-date" (want RFC 3339 or YYYY-MM-DD)',
    );
    assertFilterError(
      'modified-before=nope',
      'ERR_LOOKUP_FILTER_DATE',
      'filter modified-before: invalid date "nope" (want RFC 3339 or YYYY-MM-DD)',
    );
  });

  it('keeps everything after the first = as the value', () => {
    assert.deepEqual(parseFilter('expr=a=b'), [{ kind: 'exact', key: 'expr', value: 'a=b' }]);
  });
});

describe('filter predicates (filter_test.go TestPredicateMatches)', () => {
  const table: [string, boolean][] = [
    ['project=broker', true],
    ['project=universe', false],
    ['author=fritz', false],
    ['tag=go', true],
    ['tag=GO', true],
    ['tag=rust', false],
    ['modified-after=2025-01-01', true],
    ['modified-after=2025-12-01', false],
    ['modified-before=2025-12-01', true],
    ['modified-before=2025-01-01', false],
    ['project=broker,tag=auth', true],
    ['project=broker,tag=rust', false],
  ];
  for (const [filter, want] of table) {
    it(`${want ? 'matches' : 'does not match'} ${filter}`, () => assert.equal(matches(filter), want));
  }

  it('compares metadata values exactly and case-sensitively', () => {
    assert.equal(matches('project=Broker'), false);
    assert.equal(matches('type=note'), true);
  });

  it('never matches a key the document does not carry, inherited object keys included', () => {
    assert.equal(matches('constructor=x'), false);
    assert.equal(matches('constructor=function Object() { [native code] }'), false);
  });

  it('matches a `tags` key against the stored tag string, not membership', () => {
    assert.equal(matches('tags=go', { ...doc, metadata: { tags: 'go' } }), true);
    assert.equal(matches('tags=go', { ...doc, metadata: { tags: 'go,auth' } }), false);
  });

  it('folds tags as strings.EqualFold does (Kelvin sign, long s)', () => {
    assert.equal(matches('tag=k', { ...doc, tags: ['\u212a'] }), true);
    assert.equal(matches('tag=S', { ...doc, tags: ['\u017f'] }), true);
    assert.equal(matches('tag=i', { ...doc, tags: ['\u0131'] }), false);
  });

  it('is strict at the boundary: a document modified exactly at the bound is neither after nor before', () => {
    assert.equal(matches('modified-after=2025-06-01'), false);
    assert.equal(matches('modified-before=2025-06-01T00:00:00Z'), false);
  });

  it('keeps nanoseconds of the bound: a document at .000 is before a bound at .0000001', () => {
    assert.equal(matches('modified-before=2025-06-01T00:00:00.0000001Z'), true);
    assert.equal(matches('modified-after=2025-05-31T23:59:59.9999999Z'), true);
  });

  it('applies the offset of an RFC 3339 bound', () => {
    assert.equal(matches('modified-before=2025-06-01T01:00:00+01:00'), false);
    assert.equal(matches('modified-before=2025-06-01T01:00:01+01:00'), true);
  });
});

describe('filter dates (time.Parse RFC 3339, then 2006-01-02)', () => {
  const ms = (text: string) => parseFilterInstant(text)?.ms;

  it('reads a bare date as UTC midnight', () => {
    assert.equal(ms('2025-01-01'), Date.UTC(2025, 0, 1));
    assert.equal(ms('0000-03-01'), Date.UTC(2000, 2, 1) - 730_485 * 86_400_000);
  });

  it('accepts what time.Parse accepts: a fraction with . or , a one-digit hour, offsets up to 24:60', () => {
    assert.equal(ms('2025-01-01T00:00:00.5Z'), Date.UTC(2025, 0, 1) + 500);
    assert.equal(ms('2025-01-01T00:00:00,25Z'), Date.UTC(2025, 0, 1) + 250);
    assert.equal(ms('2025-01-01T7:00:00Z'), Date.UTC(2025, 0, 1, 7));
    assert.equal(ms('2025-01-02T00:00:00+24:00'), Date.UTC(2025, 0, 1));
    assert.equal(ms('2025-01-01T00:00:00.1234567891Z'), Date.UTC(2025, 0, 1) + 123);
  });

  it('refuses lower-case t or z, impossible days, hour 24, second 60 and stray text', () => {
    for (const text of [
      '2025-01-01t00:00:00Z',
      '2025-01-01T00:00:00z',
      '2025-02-29',
      '2024-02-30',
      '2025-13-01',
      '2025-01-01T24:00:00Z',
      '2025-01-01T00:00:60Z',
      '2025-01-01T00:00:00',
      '2025-01-01 ',
      '2025-1-01',
      '25-01-01',
      '2025-01-01T00:00:00+25:00',
      '2025-01-01T00:00Z',
    ]) {
      assert.equal(parseFilterInstant(text), null, text);
    }
  });

  it('accepts 29 February in a leap year', () => {
    assert.equal(ms('2024-02-29'), Date.UTC(2024, 1, 29));
    assert.equal(ms('2000-02-29'), Date.UTC(2000, 1, 29));
    assert.equal(parseFilterInstant('1900-02-29'), null);
  });
});
