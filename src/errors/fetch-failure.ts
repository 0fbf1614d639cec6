/**
 * Why an outbound HTTP request failed, in words a person can act on. Node's
 * fetch (undici) reports every network failure as `TypeError: fetch failed`
 * and keeps the reason in `cause` (`ECONNREFUSED`, `ENOTFOUND`, a certificate
 * code, ...); openid-client wraps that once more. Printing `message` alone
 * therefore says nothing: this reads the chain instead.
 */

/** Every `code` along an error's `cause` chain, outermost first (bounded: causes can loop). */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let cause: unknown = error;
  for (let depth = 0; depth < 8 && cause instanceof Error; depth += 1, cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

const reasons: ReadonlyArray<[codes: readonly string[], reason: string]> = [
  [['ECONNREFUSED'], 'connection refused, nothing listens at that address'],
  [['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME'], 'the host name does not resolve'],
  [['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ABORT_ERR'], 'no answer in time'],
  [['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'], 'the connection was closed before an answer'],
  [['EHOSTUNREACH', 'ENETUNREACH'], 'the network cannot reach the host'],
  [
    [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'CERT_HAS_EXPIRED',
      'ERR_TLS_CERT_ALTNAME_INVALID',
    ],
    'its TLS certificate is not trusted',
  ],
];

/** Whether the request got no answer at all (refused, unresolved, timed out, cut off, untrusted TLS), rather than an error answer. */
export function isNetworkFailure(error: unknown): boolean {
  const codes = errorCodes(error);
  if (reasons.some(([known]) => codes.some((code) => known.includes(code)))) return true;
  let cause: unknown = error;
  for (let depth = 0; depth < 8 && cause instanceof Error; depth += 1, cause = cause.cause)
    if (cause.name === 'TimeoutError' || (cause instanceof TypeError && cause.message === 'fetch failed')) return true;
  return false;
}

/** A short reason for a failed request: a known network cause in plain words, else the innermost message. */
export function fetchFailureReason(error: unknown): string {
  const codes = errorCodes(error);
  for (const [known, reason] of reasons) {
    const code = codes.find((c) => known.includes(c));
    if (code !== undefined) return `${reason} (${code})`;
  }
  let innermost: unknown = error;
  for (let depth = 0; depth < 8 && innermost instanceof Error; depth += 1) {
    // AbortSignal.timeout() aborts with a DOMException named TimeoutError (numeric code).
    if (innermost.name === 'TimeoutError') return 'no answer in time';
    if (!(innermost.cause instanceof Error)) break;
    innermost = innermost.cause;
  }
  return innermost instanceof Error ? innermost.message : String(innermost);
}
