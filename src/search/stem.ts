/**
 * Query-side stemming and the stoplist (lexical-search spec §3.3, §3.4).
 *
 * Documents are never stemmed: a stem is used as a word-boundary prefix, so
 * `merge` → `merg` reaches `merging` and `merged`, and IDF neutralises the reach.
 */

/**
 * The 44-word stoplist of the lexical-search spec §3.3. Quantifiers (many, several,
 * same, too) are deliberately absent: "too many owners" is a concept, not noise.
 */
export const stopwords: ReadonlySet<string> = new Set(
  ('the a an and or of to in on is it its as at by for how does do what which that this ' +
    'these those with from into are be can just them they their so if not no but vs us we you').split(' '),
);

/** Shortest stem kept when a suffix is removed, so `uses` → `use`, never `us`. */
const minStemLength = 3;

/**
 * Light stemmer. Spec §3.4: drop a plural `s` (not `ss`) from words of 4+ letters,
 * then a mute `e` from words of 5+ letters (`declares` → `declar`). Our addition:
 * drop `ing` / `ed` when at least 4 letters remain, and undo a doubled final
 * consonant (`committing` → `commit`), so an inflected query reaches its base word.
 */
export function stem(term: string): string {
  let s = term;
  if (s.length >= 4 && s.endsWith('s') && !s.endsWith('ss')) s = s.slice(0, -1);
  if (s.length >= 5 && s.endsWith('e')) s = s.slice(0, -1);
  const suffix = s.endsWith('ing') ? 3 : s.endsWith('ed') ? 2 : 0;
  if (suffix > 0 && s.length - suffix >= minStemLength + 1) s = undoubled(s.slice(0, -suffix));
  return s;
}

/** `committ` → `commit`, `dropp` → `drop`; `ll`, `ss`, `zz` stay (`install`, `process`). */
function undoubled(s: string): string {
  const last = s.at(-1) ?? '';
  if (s.length > minStemLength && last === s.at(-2) && /[bdfgkmnprt]/.test(last)) return s.slice(0, -1);
  return s;
}
