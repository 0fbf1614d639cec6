/**
 * Per-query working memory, sized to the index and reused across queries, so a
 * query allocates nothing proportional to the corpus. Every array is reset through
 * the touched lists it keeps, never by a full clear.
 */

export const DocFlag = { seen: 1, catalog: 2, description: 4 } as const;

export class TermScratch {
  sectionTf: Int32Array;
  sectionTrail: Uint8Array;
  sections: number[] = [];
  bodyTf: Float64Array;
  cover: Float64Array;
  flags: Uint8Array;
  tier: Float64Array;
  contribution: Float64Array;
  docs: number[] = [];

  constructor(docCapacity: number, sectionCapacity: number) {
    this.sectionTf = new Int32Array(sectionCapacity);
    this.sectionTrail = new Uint8Array(sectionCapacity);
    this.bodyTf = new Float64Array(docCapacity);
    this.cover = new Float64Array(docCapacity);
    this.flags = new Uint8Array(docCapacity);
    this.tier = new Float64Array(docCapacity);
    this.contribution = new Float64Array(docCapacity);
  }

  touchDoc(doc: number): void {
    if ((this.flags[doc] ?? 0) & DocFlag.seen) return;
    this.flags[doc] = (this.flags[doc] ?? 0) | DocFlag.seen;
    this.docs.push(doc);
  }

  reset(): void {
    for (const s of this.sections) {
      this.sectionTf[s] = 0;
      this.sectionTrail[s] = 0;
    }
    for (const d of this.docs) {
      this.bodyTf[d] = 0;
      this.cover[d] = 0;
      this.flags[d] = 0;
      this.tier[d] = 0;
      this.contribution[d] = 0;
    }
    this.sections = [];
    this.docs = [];
  }
}

/** Row state of the docs and sections a query touched. */
export const DocState = { unseen: 0, seen: 1, hasSectionRow: 2, outOfScope: 3 } as const;

export class QueryScratch {
  readonly term: TermScratch;
  docScore: Float64Array;
  catalogMask: Uint32Array;
  docState: Uint8Array;
  docs: number[] = [];
  sectionExtra: Float64Array;
  sectionMask: Uint32Array;
  sections: number[] = [];

  readonly docCapacity: number;
  readonly sectionCapacity: number;

  constructor(docCapacity: number, sectionCapacity: number) {
    this.docCapacity = docCapacity;
    this.sectionCapacity = sectionCapacity;
    this.term = new TermScratch(docCapacity, sectionCapacity);
    this.docScore = new Float64Array(docCapacity);
    this.catalogMask = new Uint32Array(docCapacity);
    this.docState = new Uint8Array(docCapacity);
    this.sectionExtra = new Float64Array(sectionCapacity);
    this.sectionMask = new Uint32Array(sectionCapacity);
  }

  fits(docCapacity: number, sectionCapacity: number): boolean {
    return docCapacity <= this.docCapacity && sectionCapacity <= this.sectionCapacity;
  }

  reset(): void {
    this.term.reset();
    for (const d of this.docs) {
      this.docScore[d] = 0;
      this.catalogMask[d] = 0;
      this.docState[d] = 0;
    }
    for (const s of this.sections) {
      this.sectionExtra[s] = 0;
      this.sectionMask[s] = 0;
    }
    this.docs = [];
    this.sections = [];
  }
}
