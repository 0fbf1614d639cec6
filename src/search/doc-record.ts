/**
 * What the index keeps per document, and how a document becomes tokens.
 * Tokenizing is deterministic, so removal re-derives a document's words from the
 * record instead of storing a word list per document.
 */
import { documentPrior } from './scoring.ts';
import { splitSections } from './sections.ts';
import type { LineWords, WordTable } from './line-words.ts';
import { wordRuns } from './tokenize.ts';
import { FieldBit } from './vocabulary.ts';
import type { CorpusTotals, SearchDoc } from './types.ts';
import { noScripts, type ScriptCounts } from './script-profile.ts';

export interface SectionRecord {
  anchor: string;
  heading: string;
  trail: string[];
  /** Stripped text lines joined by '\n' (snippets are cut from it). */
  text: string;
  /** The runs of each line of `text`, numbered in the index's WordTable (snippets). */
  lines: LineWords;
}

export interface DocRecord {
  num: number;
  id: string;
  title: string;
  name: string;
  description: string;
  tags: string[];
  importance: number;
  /** Score multiplier from importance and path (scoring.ts documentPrior). */
  prior: number;
  nameLength: number;
  descriptionLength: number;
  bodyLength: number;
  trailLength: number;
  /** Section ids run from firstSection to firstSection + sections.length - 1. */
  firstSection: number;
  sections: SectionRecord[];
  /** Distinct words per script, for the language hint (script-profile.ts); set as the document is added. */
  scripts: ScriptCounts;
}

/** Token view of one document, derived from its record. */
export interface DocTokens {
  /** Distinct title/name/tag/description words with their FieldBit masks. */
  fields: Map<string, number>;
  /** Per section: text term frequencies, trail words, and the two lengths. */
  sections: { tf: Map<string, number>; trail: Set<string>; length: number; trailLength: number }[];
  nameLength: number;
  descriptionLength: number;
}

export function makeRecord(doc: SearchDoc, num: number, firstSection: number, words: WordTable): DocRecord {
  const sections = splitSections(doc.body).map((s) => ({
    anchor: s.anchor,
    heading: s.heading,
    trail: s.trail,
    text: s.text,
    lines: words.add(s.text),
  }));
  return {
    num,
    id: doc.id,
    title: doc.title,
    name: doc.name ?? '',
    description: doc.description ?? '',
    tags: [...doc.tags],
    importance: doc.importance,
    prior: documentPrior(doc.importance, doc.id),
    nameLength: 0,
    descriptionLength: 0,
    bodyLength: 0,
    trailLength: 0,
    firstSection,
    sections,
    // IndexState.add counts them once it has the document's distinct words (src/search/index-state.ts).
    scripts: noScripts,
  };
}

export function tokensOf(record: DocRecord): DocTokens {
  const fields = new Map<string, number>();
  const mark = (words: string[], bit: number): number => {
    for (const w of words) fields.set(w, (fields.get(w) ?? 0) | bit);
    return words.length;
  };
  let nameLength = mark(wordRuns(record.title), FieldBit.title);
  nameLength += mark(wordRuns(record.name), FieldBit.name);
  for (const tag of record.tags) nameLength += mark(wordRuns(tag), FieldBit.tag);
  const descriptionLength = mark(wordRuns(record.description), FieldBit.description);
  const sections = record.sections.map((s) => {
    const words = wordRuns(s.text);
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    const trailWords = wordRuns(s.trail.join('\n'));
    return { tf, trail: new Set(trailWords), length: words.length, trailLength: trailWords.length };
  });
  return { fields, sections, nameLength, descriptionLength };
}

/** Every distinct word of the document, in any field. */
export function distinctWords(tokens: DocTokens): Set<string> {
  const all = new Set(tokens.fields.keys());
  for (const s of tokens.sections) {
    for (const w of s.tf.keys()) all.add(w);
    for (const w of s.trail) all.add(w);
  }
  return all;
}

/** Adds (sign +1) or takes away (sign -1) one document's share of the corpus totals. */
export function countRecord(t: CorpusTotals, record: DocRecord, sign: 1 | -1): void {
  t.docCount += sign;
  t.sectionCount += sign * record.sections.length;
  if (record.descriptionLength > 0) t.describedDocs += sign;
  t.nameTokens += sign * record.nameLength;
  t.descriptionTokens += sign * record.descriptionLength;
  t.bodyTokens += sign * record.bodyLength;
  t.trailTokens += sign * record.trailLength;
}
