import { BearerError } from './bearer-error.ts';

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1).
 * Like the Go broker (`bearerToken`), the header must split on
 * whitespace into exactly two fields with a case-insensitive `Bearer` scheme.
 * Only the header is read: RFC 6750 §2.3 query tokens are never accepted.
 */
export function parseBearerHeader(header: string | readonly string[] | undefined): string {
  if (header === undefined) throw new BearerError('ERR_BEARER_MISSING', 'no Authorization header');
  if (typeof header !== 'string') throw new BearerError('ERR_BEARER_MALFORMED', 'more than one Authorization header');
  const fields = header.trim().split(/\s+/);
  const scheme = fields[0] ?? '';
  if (scheme === '') throw new BearerError('ERR_BEARER_MISSING', 'empty Authorization header');
  if (scheme.toLowerCase() !== 'bearer')
    throw new BearerError('ERR_BEARER_MISSING', 'Authorization scheme is not Bearer');
  if (fields.length !== 2)
    throw new BearerError('ERR_BEARER_MALFORMED', `Bearer header has ${fields.length} fields, expected 2`);
  return fields[1]!;
}
