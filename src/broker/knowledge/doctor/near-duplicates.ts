/**
 * Near-duplicate documents by shingled similarity: each body becomes a set of
 * word 3-grams, MinHash signatures estimate the Jaccard similarity of two
 * sets, and locality-sensitive hashing over bands of the signature proposes
 * candidate pairs, which are then scored exactly. Cost grows with the corpus,
 * not with its square (Broder 1997; Leskovec, Rajaraman, Ullman, "Mining of
 * Massive Datasets", ch. 3).
 */
export type NearDuplicate = { a: number; b: number; similarity: number };

/** The pairs found, and whether every candidate pair was scored (false: the comparison budget ran out). */
export type NearDuplicateSearch = { pairs: NearDuplicate[]; complete: boolean };

/**
 * Exact comparisons one search may make. Alike documents (a template filled
 * in per service) share every band's bucket, so candidates grow with the
 * square of their number: 5,000 of them are 12.5 million pairs, minutes of a
 * blocked event loop (test/security/doctor-near-duplicate-flood.test.ts).
 * A comparison reads at most two sets of `maxShingles`, so this bounds the
 * search's time and the findings it can return.
 */
export const maxNearComparisons = 50_000;

// 8 bands of 4 rows: a pair with similarity 0.8 becomes a candidate with
// probability 1 - (1 - 0.8^4)^8 = 0.985, one with 0.9 with 0.9998; unrelated
// documents (similarity under 0.3) almost never do. Candidates are scored exactly.

const shingleWords = 3;
const bands = 8;
const rowsPerBand = 4;
const signatureLength = bands * rowsPerBand;
/** Shingle sets larger than this are sampled down to the smallest hashes (a bottom-k sketch). */
const maxShingles = 4096;

export function nearDuplicates(
  bodies: readonly string[],
  threshold: number,
  maxComparisons = maxNearComparisons,
): NearDuplicateSearch {
  const sets = bodies.map(shingles);
  const signatures = sets.map(signature);
  const seen = new Set<string>();
  const found: NearDuplicate[] = [];
  const sorted = (complete: boolean): NearDuplicateSearch => ({
    pairs: found.sort((x, y) => y.similarity - x.similarity || x.a - y.a || x.b - y.b),
    complete,
  });
  for (let band = 0; band < bands; band++) {
    const buckets = new Map<string, number[]>();
    signatures.forEach((sig, doc) => {
      if (sets[doc]!.length === 0) return;
      const key = sig.slice(band * rowsPerBand, (band + 1) * rowsPerBand).join(',');
      const bucket = buckets.get(key);
      if (bucket) bucket.push(doc);
      else buckets.set(key, [doc]);
    });
    for (const bucket of buckets.values()) {
      for (let i = 0; i < bucket.length; i++)
        for (let j = i + 1; j < bucket.length; j++) {
          const a = bucket[i]!;
          const b = bucket[j]!;
          const key = `${a},${b}`;
          if (seen.has(key)) continue;
          if (seen.size === maxComparisons) return sorted(false);
          seen.add(key);
          const similarity = jaccard(sets[a]!, sets[b]!);
          if (similarity >= threshold) found.push({ a, b, similarity });
        }
    }
  }
  return sorted(true);
}

/** Sorted distinct 32-bit hashes of the body's word 3-grams (case and punctuation folded). */
export function shingles(body: string): Uint32Array {
  const words = body.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  // Each word is hashed once; a 3-gram's hash combines its words' hashes by position.
  const wordHashes = words.map(fnv1a);
  const hashes = new Set<number>();
  if (words.length > 0 && words.length < shingleWords)
    hashes.add(mix(wordHashes.reduce((h, w) => Math.imul(h, 31) ^ w, 0)));
  for (let i = 0; i + shingleWords <= wordHashes.length; i++)
    hashes.add(
      mix(Math.imul(wordHashes[i]!, 0x9e3779b1) ^ Math.imul(wordHashes[i + 1]!, 0x85ebca77) ^ wordHashes[i + 2]!),
    );
  const sorted = Uint32Array.from(hashes).sort();
  return sorted.length > maxShingles ? sorted.slice(0, maxShingles) : sorted;
}

function signature(set: Uint32Array): number[] {
  const sig = new Array<number>(signatureLength).fill(0xffffffff);
  for (const value of set)
    for (let i = 0; i < signatureLength; i++) {
      const h = mix(value ^ seeds[i]!);
      if (h < sig[i]!) sig[i] = h;
    }
  return sig;
}

/** Exact Jaccard similarity of two sorted hash sets. */
export function jaccard(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let common = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      common++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  const union = a.length + b.length - common;
  return union === 0 ? 0 : common / union;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A 32-bit finalizer (murmur3 fmix32): one independent-looking hash per seed. */
function mix(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const seeds = Array.from({ length: signatureLength }, (_, i) => mix(0x9e3779b9 * (i + 1)));
