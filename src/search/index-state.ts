/**
 * The mutable core of the index: documents, section tables, vocabulary and corpus
 * totals, all updated per document. Removal leaves dead postings behind (their
 * section is marked dead); compaction drops them and renumbers densely once dead
 * postings outnumber live ones, so memory stays within twice the live size.
 */
import { countRecord, distinctWords, makeRecord, tokensOf } from './doc-record.ts';
import type { DocRecord, DocTokens } from './doc-record.ts';
import { bodySection, rebaseBody, fieldBits, fieldDoc, packBody, packField, Vocabulary } from './vocabulary.ts';
import { scriptCounts } from './script-profile.ts';
import { WordTable } from './line-words.ts';
import { emptyTotals } from './stats.ts';
import type { CorpusTotals, SearchDoc } from './types.ts';

/** Compaction waits for at least this many dead postings, whatever the ratio. */
export const defaultMinDeadPostings = 4096;

export class IndexState {
  readonly vocab = new Vocabulary();
  /** Section line runs, for snippets. */
  readonly words = new WordTable();
  readonly byId = new Map<string, DocRecord>();
  /** By docNum; undefined once removed. */
  docs: (DocRecord | undefined)[] = [];
  /** By section id: owning docNum, or -1 once removed. */
  sectionDoc: Int32Array<ArrayBuffer> = new Int32Array(1024).fill(-1);
  sectionLength = new Int32Array(1024);
  sectionTrailLength = new Int32Array(1024);
  sectionCapacity = 1024;
  nextSection = 0;
  totals: CorpusTotals = emptyTotals();
  /** Bumped by every add, remove and compaction: a query run in slices reads one generation (slices.ts). */
  generation = 0;
  #livePostings = 0;
  #deadPostings = 0;
  readonly #minDeadPostings: number;

  constructor(minDeadPostings = defaultMinDeadPostings) {
    this.#minDeadPostings = minDeadPostings;
  }

  /** Postings left behind by removed documents, until the next compaction. */
  get deadPostings(): number {
    return this.#deadPostings;
  }

  add(doc: SearchDoc): void {
    this.generation++;
    const record = makeRecord(doc, this.docs.length, this.nextSection, this.words);
    const tokens = tokensOf(record);
    this.#ensureSections(record.firstSection + record.sections.length);
    this.nextSection += record.sections.length;
    this.docs.push(record);
    this.byId.set(record.id, record);
    this.#writePostings(record, tokens);
    const words = distinctWords(tokens);
    for (const w of words) this.vocab.obtain(w).df++;
    record.scripts = scriptCounts(words);
    this.#count(record, +1);
  }

  remove(id: string): boolean {
    const record = this.byId.get(id);
    if (record === undefined) return false;
    this.generation++;
    const tokens = tokensOf(record);
    const words = distinctWords(tokens);
    for (const w of words) {
      const entry = this.vocab.get(w);
      if (entry !== undefined) entry.df--;
    }
    for (let i = 0; i < record.sections.length; i++) this.sectionDoc[record.firstSection + i] = -1;
    for (const section of record.sections) this.words.release(section.lines);
    this.docs[record.num] = undefined;
    this.byId.delete(id);
    this.#count(record, -1);
    const postings = postingCount(tokens);
    this.#livePostings -= postings;
    this.#deadPostings += postings;
    if (this.#deadPostings > Math.max(this.#minDeadPostings, this.#livePostings)) this.compact();
    return true;
  }

  /** Drops dead postings and renumbers documents and sections densely. */
  compact(): void {
    this.generation++;
    const docMap = new Int32Array(this.docs.length).fill(-1);
    const sectionMap = new Int32Array(this.nextSection).fill(-1);
    const live = this.docs.filter((d): d is DocRecord => d !== undefined);
    let nextSection = 0;
    live.forEach((record, num) => {
      docMap[record.num] = num;
      for (let i = 0; i < record.sections.length; i++) sectionMap[record.firstSection + i] = nextSection + i;
      record.num = num;
      record.firstSection = nextSection;
      nextSection += record.sections.length;
    });
    for (const entry of this.vocab.entries()) {
      entry.body = remapBody(entry.body, sectionMap);
      entry.fields = remapFields(entry.fields, docMap);
    }
    this.vocab.prune();
    this.docs = live;
    this.#rebuildSectionTables(sectionMap, nextSection);
    this.#deadPostings = 0;
  }

  #writePostings(record: DocRecord, tokens: DocTokens): void {
    for (const [word, bits] of tokens.fields) this.vocab.obtain(word).fields.push(packField(record.num, bits));
    tokens.sections.forEach((s, i) => {
      const id = record.firstSection + i;
      this.sectionDoc[id] = record.num;
      this.sectionLength[id] = s.length;
      this.sectionTrailLength[id] = s.trailLength;
      for (const [word, tf] of s.tf) this.vocab.obtain(word).body.push(packBody(id, tf, s.trail.has(word)));
      for (const word of s.trail) if (!s.tf.has(word)) this.vocab.obtain(word).body.push(packBody(id, 0, true));
    });
    record.nameLength = tokens.nameLength;
    record.descriptionLength = tokens.descriptionLength;
    record.bodyLength = tokens.sections.reduce((n, s) => n + s.length, 0);
    record.trailLength = tokens.sections.reduce((n, s) => n + s.trailLength, 0);
    this.#livePostings += postingCount(tokens);
  }

  #count(record: DocRecord, sign: 1 | -1): void {
    countRecord(this.totals, record, sign);
  }

  #ensureSections(needed: number): void {
    if (needed <= this.sectionCapacity) return;
    let capacity = this.sectionCapacity;
    while (capacity < needed) capacity *= 2;
    this.sectionDoc = grow(this.sectionDoc, capacity, -1);
    this.sectionLength = grow(this.sectionLength, capacity, 0);
    this.sectionTrailLength = grow(this.sectionTrailLength, capacity, 0);
    this.sectionCapacity = capacity;
  }

  #rebuildSectionTables(sectionMap: Int32Array, sectionCount: number): void {
    const doc = new Int32Array(this.sectionCapacity).fill(-1);
    const length = new Int32Array(this.sectionCapacity);
    const trail = new Int32Array(this.sectionCapacity);
    sectionMap.forEach((to, from) => {
      if (to < 0) return;
      length[to] = this.sectionLength[from] ?? 0;
      trail[to] = this.sectionTrailLength[from] ?? 0;
    });
    for (const record of this.docs) {
      if (record === undefined) continue;
      doc.fill(record.num, record.firstSection, record.firstSection + record.sections.length);
    }
    this.sectionDoc = doc;
    this.sectionLength = length;
    this.sectionTrailLength = trail;
    this.nextSection = sectionCount;
  }
}

function postingCount(tokens: DocTokens): number {
  let n = tokens.fields.size;
  for (const s of tokens.sections) {
    n += s.tf.size;
    for (const w of s.trail) if (!s.tf.has(w)) n++;
  }
  return n;
}

function remapBody(body: number[], sectionMap: Int32Array): number[] {
  const out: number[] = [];
  for (const packed of body) {
    const to = sectionMap[bodySection(packed)] ?? -1;
    if (to >= 0) out.push(rebaseBody(packed, to));
  }
  return out;
}

function remapFields(fields: number[], docMap: Int32Array): number[] {
  const out: number[] = [];
  for (const packed of fields) {
    const to = docMap[fieldDoc(packed)] ?? -1;
    if (to >= 0) out.push(packField(to, fieldBits(packed)));
  }
  return out;
}

function grow(array: Int32Array, capacity: number, fill: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(capacity).fill(fill);
  next.set(array);
  return next;
}
