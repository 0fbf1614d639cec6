/**
 * Zero-result help, part 2: a hint when the query is written in a script the corpus
 * barely uses (spexcode's README: "the corpus is English — if your query isn't,
 * translate and retry"). Each document keeps its distinct words' count per script
 * (DocRecord.scripts), and a hint sums those of the documents the caller may read:
 * a count over the whole index told anyone in which script protected documents are
 * written (test/security/language-hint-hidden.test.ts).
 */

export type Script =
  | 'latin'
  | 'greek'
  | 'cyrillic'
  | 'hebrew'
  | 'arabic'
  | 'devanagari'
  | 'thai'
  | 'cjk'
  | 'hangul'
  | 'other';

const ranges: [number, number, Script][] = [
  [0x0041, 0x024f, 'latin'],
  [0x0370, 0x03ff, 'greek'],
  [0x0400, 0x052f, 'cyrillic'],
  [0x0590, 0x05ff, 'hebrew'],
  [0x0600, 0x06ff, 'arabic'],
  [0x0900, 0x097f, 'devanagari'],
  [0x0e00, 0x0e7f, 'thai'],
  [0x1e00, 0x1eff, 'latin'],
  [0x3040, 0x30ff, 'cjk'],
  [0x3400, 0x9fff, 'cjk'],
  [0xac00, 0xd7af, 'hangul'],
  [0xf900, 0xfaff, 'cjk'],
];

/** Script of a token's first letter; undefined for digits and `_` only. */
export function scriptOf(word: string): Script | undefined {
  for (const ch of word) {
    const code = ch.codePointAt(0) ?? 0;
    if ((code >= 0x30 && code <= 0x39) || code === 0x5f) continue;
    for (const [lo, hi, script] of ranges) if (code >= lo && code <= hi) return script;
    return 'other';
  }
  return undefined;
}

/** Below this share of the corpus, a query's script earns the language hint. */
const rareScriptShare = 0.05;

/** Words per script; words without a letter are not counted. */
export type ScriptCounts = ReadonlyMap<Script, number>;

/** No words counted: one shared empty map for every record until its words are counted (read-only, so sharing is safe). */
export const noScripts: ScriptCounts = new Map();

export function scriptCounts(words: Iterable<string>): ScriptCounts {
  const counts = new Map<Script, number>();
  for (const w of words) {
    const script = scriptOf(w);
    if (script !== undefined) counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return counts;
}

export class ScriptProfile {
  readonly #counts = new Map<Script, number>();
  #total = 0;

  /** Adds one document's (or the query's) counts. */
  add(counts: ScriptCounts): void {
    for (const [script, n] of counts) {
      this.#counts.set(script, (this.#counts.get(script) ?? 0) + n);
      this.#total += n;
    }
  }

  dominant(): Script | undefined {
    let best: Script | undefined;
    let bestCount = 0;
    for (const [script, n] of this.#counts) {
      if (n > bestCount) {
        best = script;
        bestCount = n;
      }
    }
    return best;
  }

  /** A sentence for the caller when the query's script is rare in the corpus. */
  hintFor(queryWords: readonly string[]): string | undefined {
    const query = new ScriptProfile();
    query.add(scriptCounts(queryWords));
    const queryScript = query.dominant();
    const corpusScript = this.dominant();
    if (queryScript === undefined || corpusScript === undefined || queryScript === corpusScript) return undefined;
    if ((this.#counts.get(queryScript) ?? 0) / this.#total >= rareScriptShare) return undefined;
    return `the corpus is mostly ${corpusScript}-script text; if your query is in another language, translate it and retry`;
  }
}
