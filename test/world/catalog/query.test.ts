import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FilterError, LookupRequestError, isLookupRequestError } from '../../../src/world/catalog/errors.ts';
import { parseLookupLimit, parseLookupQuery } from '../../../src/world/catalog/query.ts';

function assertRefused(run: () => unknown, code: string, message: string): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof LookupRequestError);
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  });
}

const distinctTerms = (n: number) => Array.from({ length: n }, (_, i) => `term${i}`).join(' ');

describe('parseLookupQuery (handler.handleLookup steps 1 and 2)', () => {
  it('refuses a missing, empty or one-rune query', () => {
    for (const raw of [undefined, '', '   ', 'a', ' é ', '😀']) {
      assertRefused(() => parseLookupQuery(raw), 'ERR_LOOKUP_QUERY_TOO_SHORT', 'query must be at least 2 characters');
    }
  });

  it('accepts two runes, and `*` alone as the match-all query', () => {
    assert.deepEqual(parseLookupQuery(' go '), { text: 'go', matchAll: false, terms: ['go'] });
    assert.deepEqual(parseLookupQuery('  *  '), { text: '*', matchAll: true, terms: ['*'] });
    assert.equal(parseLookupQuery('* go').matchAll, false);
  });

  it('refuses 33 distinct terms and always reports 33 (counting stops there)', () => {
    assertRefused(
      () => parseLookupQuery(distinctTerms(33)),
      'ERR_LOOKUP_TOO_MANY_TERMS',
      'query has too many terms: 33 > 32',
    );
    assertRefused(
      () => parseLookupQuery(distinctTerms(50)),
      'ERR_LOOKUP_TOO_MANY_TERMS',
      'query has too many terms: 33 > 32',
    );
  });

  it('accepts 32 distinct terms, also with every term repeated', () => {
    assert.equal(parseLookupQuery(distinctTerms(32)).terms.length, 32);
    assert.equal(parseLookupQuery(`${distinctTerms(32)} ${distinctTerms(32).toUpperCase()}`).terms.length, 32);
  });
});

describe('LookupRequestError', () => {
  it('is recognised by code, filter errors included, and nothing else is', () => {
    const tooShort = new LookupRequestError('ERR_LOOKUP_QUERY_TOO_SHORT', 'query must be at least 2 characters');
    assert.equal(isLookupRequestError(tooShort), true);
    assert.equal(isLookupRequestError(tooShort, 'ERR_LOOKUP_INVALID_LIMIT'), false);
    assert.equal(
      isLookupRequestError(new FilterError('ERR_LOOKUP_MALFORMED_FILTER', 'malformed filter clause "x"', 'x')),
      true,
    );
    assert.equal(isLookupRequestError(new Error('query must be at least 2 characters')), false);
  });
});

describe('parseLookupLimit (handler.handleLookup step 3)', () => {
  it('defaults to 10 when absent or empty', () => {
    assert.equal(parseLookupLimit(undefined), 10);
    assert.equal(parseLookupLimit(''), 10);
  });

  it('reads integers as strconv.Atoi does and clamps above 1000', () => {
    assert.equal(parseLookupLimit('2'), 2);
    assert.equal(parseLookupLimit('+7'), 7);
    assert.equal(parseLookupLimit('007'), 7);
    assert.equal(parseLookupLimit('5000'), 1000);
    assert.equal(parseLookupLimit('9223372036854775807'), 1000);
  });

  it('refuses non-integers, values below 1 and values past int64 as `invalid limit`', () => {
    for (const raw of ['zero', '0', '-3', '1.5', ' 5', '5 ', '0x10', '9223372036854775808']) {
      assertRefused(() => parseLookupLimit(raw), 'ERR_LOOKUP_INVALID_LIMIT', 'invalid limit');
    }
  });
});
