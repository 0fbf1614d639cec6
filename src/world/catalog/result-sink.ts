import { lookupMaxLimit } from '../../protocol/limits.ts';
import type { CatalogDoc } from './doc.ts';
import type { CatalogEntry } from './entry.ts';

/** A LOOKUP row: the entry and its score (distinct terms matched; 0 for `*`). */
export interface LookupHit extends CatalogEntry {
  readonly score: number;
}

/**
 * Receives matches in final order and applies what follows the ranking, in the
 * Go handler's order: keep the first Max (1000) rows, drop each row `allow`
 * denies, stop at `limit`. A denied row is not counted and displaces nothing.
 */
export class ResultSink {
  readonly hits: LookupHit[] = [];
  readonly #allow: (path: string) => boolean;
  readonly #limit: number;
  #examined = 0;

  constructor(allow: (path: string) => boolean, limit: number) {
    this.#allow = allow;
    this.#limit = limit;
  }

  /** Rows still wanted, at best: what a planner should expect to produce. */
  get wanted(): number {
    return Math.min(this.#limit - this.hits.length, lookupMaxLimit - this.#examined);
  }

  get done(): boolean {
    return this.hits.length >= this.#limit || this.#examined >= lookupMaxLimit;
  }

  /** Takes the next row in order; false once no further row can change the answer. */
  offer(doc: CatalogDoc, score: number): boolean {
    this.#examined++;
    if (this.#allow(doc.path)) this.hits.push({ ...doc.entry, score });
    return !this.done;
  }
}
