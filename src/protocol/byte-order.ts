/**
 * Go orders strings by their bytes (map keys in yaml.v3's output, directory
 * listings, LIST cursors), and UTF-8's byte order is code point order.
 */

const surrogate = /[\ud800-\udfff]/;

/**
 * `a` against `b` in byte order: negative, zero or positive. Without surrogates
 * every UTF-16 code unit is a code point, so JavaScript's own comparison of code
 * units gives that order; only strings beyond the BMP need their bytes.
 */
export function compareBytes(a: string, b: string): number {
  if (!surrogate.test(a) && !surrogate.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
