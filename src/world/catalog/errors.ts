/**
 * Refusals of a LOOKUP request's options. Every one is the client's fault and is
 * answered `bad-request` with `message` as the body text, which is byte for byte
 * what the Go handler writes (handler.handleLookup, catalog.ParseFilter).
 *
 * | code                         | when                                          | message                                    |
 * |------------------------------|-----------------------------------------------|--------------------------------------------|
 * | ERR_LOOKUP_QUERY_TOO_SHORT   | trimmed query is not `*` and < 2 runes        | query must be at least 2 characters        |
 * | ERR_LOOKUP_TOO_MANY_TERMS    | more than 32 distinct terms                   | query has too many terms: 33 > 32          |
 * | ERR_LOOKUP_INVALID_LIMIT     | limit is not an integer ≥ 1                   | invalid limit                              |
 * | ERR_LOOKUP_MALFORMED_FILTER  | a clause without `=`, key or value            | malformed filter clause "<clause>"         |
 * | ERR_LOOKUP_FILTER_DATE       | modified-after/-before value is not a date    | filter <key>: invalid date "<v>" (want …)  |
 */
import { CodedError } from '../../errors/coded-error.ts';
export type LookupRequestErrorCode =
  | 'ERR_LOOKUP_QUERY_TOO_SHORT'
  | 'ERR_LOOKUP_TOO_MANY_TERMS'
  | 'ERR_LOOKUP_INVALID_LIMIT'
  | 'ERR_LOOKUP_MALFORMED_FILTER'
  | 'ERR_LOOKUP_FILTER_DATE';

export class LookupRequestError extends CodedError<LookupRequestErrorCode> {}

/** The `filter` option does not parse (Go `catalog/filter.go`); `clause` is the trimmed clause at fault. */
export class FilterError extends LookupRequestError {
  readonly clause: string;

  constructor(code: 'ERR_LOOKUP_MALFORMED_FILTER' | 'ERR_LOOKUP_FILTER_DATE', message: string, clause: string) {
    super(code, message);
    this.clause = clause;
  }
}

export function isLookupRequestError(err: unknown, code?: LookupRequestErrorCode): err is LookupRequestError {
  return err instanceof LookupRequestError && (code === undefined || err.code === code);
}
