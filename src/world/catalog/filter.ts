import type { CatalogEntry } from './entry.ts';
import { FilterError } from './errors.ts';
import { goTrimSpace } from '../../protocol/go-strings.ts';
import { foldKey, goQuote } from './go-text.ts';
import { isAfterInstant, isBeforeInstant, parseFilterInstant } from './filter-time.ts';
import type { FilterInstant } from './filter-time.ts';

/**
 * One parsed filter clause (Go `catalog/filter.go`, filter.go Predicate). A document
 * must satisfy every predicate of a filter. Build them with `parseFilter` only.
 */
export type Predicate =
  | { readonly kind: 'tag'; readonly value: string; readonly folded: string }
  | { readonly kind: 'modified-after'; readonly bound: FilterInstant }
  | { readonly kind: 'modified-before'; readonly bound: FilterInstant }
  | { readonly kind: 'exact'; readonly key: string; readonly value: string };

/**
 * `ParseFilter`: comma-separated `key=value` clauses, each trimmed, empty ones
 * skipped. `tag` is tag membership (EqualFold), `modified-after` and
 * `modified-before` compare the modified time strictly, any other key is exact
 * equality with a declared metadata value. Throws FilterError with Go's message.
 */
export function parseFilter(text: string | undefined): Predicate[] {
  const whole = goTrimSpace(text ?? '');
  if (whole === '') return [];
  const predicates: Predicate[] = [];
  for (const raw of whole.split(',')) {
    const clause = goTrimSpace(raw);
    if (clause !== '') predicates.push(parseClause(clause));
  }
  return predicates;
}

function parseClause(clause: string): Predicate {
  const equals = clause.indexOf('=');
  const key = goTrimSpace(equals < 0 ? clause : clause.slice(0, equals));
  const value = equals < 0 ? '' : goTrimSpace(clause.slice(equals + 1));
  if (equals < 0 || key === '' || value === '') {
    throw new FilterError('ERR_LOOKUP_MALFORMED_FILTER', `malformed filter clause ${goQuote(clause)}`, clause);
  }
  switch (key) {
    case 'modified-after':
    case 'modified-before': {
      const bound = parseFilterInstant(value);
      if (bound === null) {
        const reason = `invalid date ${goQuote(value)} (want RFC 3339 or YYYY-MM-DD)`;
        throw new FilterError('ERR_LOOKUP_FILTER_DATE', `filter ${key}: ${reason}`, clause);
      }
      return { kind: key, bound };
    }
    case 'tag':
      return { kind: 'tag', value, folded: foldKey(value) };
    default:
      return { kind: 'exact', key, value };
  }
}

/** What a predicate reads of a document; the catalog keeps the folded tags precomputed. */
export interface FilterSubject {
  readonly foldedTags: readonly string[];
  readonly modifiedMs: number;
  readonly metadata: Readonly<Record<string, string>>;
}

/** `MatchesAll` over a prepared subject: every predicate holds (an empty filter always does). */
export function subjectMatches(subject: FilterSubject, filter: readonly Predicate[]): boolean {
  for (const predicate of filter) {
    if (!predicateHolds(predicate, subject)) return false;
  }
  return true;
}

function predicateHolds(predicate: Predicate, subject: FilterSubject): boolean {
  switch (predicate.kind) {
    case 'tag':
      return subject.foldedTags.includes(predicate.folded);
    case 'modified-after':
      return isAfterInstant(subject.modifiedMs, predicate.bound);
    case 'modified-before':
      return isBeforeInstant(subject.modifiedMs, predicate.bound);
    case 'exact':
      // A missing key never matches: values are never empty, and Go reads a missing key as "".
      return Object.hasOwn(subject.metadata, predicate.key) && subject.metadata[predicate.key] === predicate.value;
  }
}

/** `MatchesAll` for a bare entry, for callers without a catalog (other backends, tests). */
export function matchesFilter(entry: CatalogEntry, filter: readonly Predicate[]): boolean {
  if (filter.length === 0) return true;
  return subjectMatches(
    { foldedTags: entry.tags.map(foldKey), modifiedMs: entry.modified.getTime(), metadata: entry.metadata },
    filter,
  );
}
