/** The world's LOOKUP catalog (Go `server/internal/catalog`): entries, filters, query checks and the indexed Catalog. */
export { Catalog } from './catalog.ts';
export type { LookupRequest } from './catalog.ts';
export type { LookupHit } from './result-sink.ts';
export { entryFromDocument, firstH1, pathBase, resolveTitle } from './entry.ts';
export type { CatalogEntry, CatalogSource } from './entry.ts';
export { matchesFilter, parseFilter } from './filter.ts';
export type { Predicate } from './filter.ts';
export { parseLookupLimit, parseLookupQuery } from './query.ts';
export type { LookupQuery } from './query.ts';
export { isUnderScope, normalizeScope } from './scope.ts';
export { FilterError, LookupRequestError, isLookupRequestError } from './errors.ts';
export type { LookupRequestErrorCode } from './errors.ts';
export { compareCodePoints, foldKey } from './go-text.ts';
