/**
 * Query-side stemming and the stoplist (spexcode `ranker.ts`).
 *
 * Documents are never stemmed: a stem is used as a word-boundary prefix, so
 * `merge` → `merg` reaches `merging` and `merged`, and IDF neutralises the reach.
 */

/**
 * The 44-word stoplist of the spexcode `ranker.ts`, plus question and function
 * words (interrogatives, auxiliaries and modals, pronouns, a few connectives).
 *
 * Why the additions: under the Go `bodymatch.go` rule every query term must be found
 * for a row to appear, so a question word such as `why`, `should` or `your`, which
 * the answering text rarely repeats, would alone empty a strict answer. They carry
 * no subject; dropping them only ever adds rows. Measured on the retrieval
 * benchmark they change no rank in either mode (bench/search-eval.ts), so the
 * gain is for questions phrased unlike the sixteen.
 *
 * Kept out on purpose: quantifiers (many, several, same, too: "too many owners" is
 * a concept, not noise) and prepositions of time and place (before, after, inside,
 * without: "read before touching code" turns on `before`).
 */
const referenceStopwords =
  'the a an and or of to in on is it its as at by for how does do what which that this ' +
  'these those with from into are be can just them they their so if not no but vs us we you';
const questionWords =
  'who whom whose when where why was were been being has have had did will would should could may might must shall ' +
  'i me my mine he him his she her our ours your yours itself there here than then also about via while because very';

export const stopwords: ReadonlySet<string> = new Set(`${referenceStopwords} ${questionWords}`.split(' '));

/** Shortest stem kept when a suffix is removed, so `uses` → `use`, never `us`. */
const minStemLength = 3;

/**
 * Light stemmer, as spexcode's `ranker.ts`: drop a plural `s` (not `ss`) from words of 4+ letters,
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
