import type { CatalogIndex } from './catalog-index.ts';
import type { CatalogDoc } from './doc.ts';
import { subjectMatches } from './filter.ts';
import type { Predicate } from './filter.ts';
import { isUnderScope } from './scope.ts';

/** Where and under which filter a lookup runs. */
export interface LookupPlan {
  readonly scope: string;
  readonly filter: readonly Predicate[];
}

/** The scope and filter test every produced row must pass. */
export function acceptor(plan: LookupPlan): (doc: CatalogDoc) => boolean {
  const { scope, filter } = plan;
  if (scope === '/' && filter.length === 0) return () => true;
  return (doc) => isUnderScope(doc.path, scope) && subjectMatches(doc, filter);
}

/** An explicit superset of the documents scope and filter admit. */
export interface Source {
  readonly size: number;
  forEach(visit: (doc: CatalogDoc) => void): void;
}

/** The smallest such superset: the scope's subtree or one `tag=` predicate's postings; null for neither. */
export function narrowestSource(index: CatalogIndex, plan: LookupPlan): Source | null {
  let best: Source | null = null;
  if (plan.scope !== '/') {
    best = { size: index.scopeSize(plan.scope), forEach: (visit) => index.forEachInScope(plan.scope, visit) };
  }
  for (const predicate of plan.filter) {
    if (predicate.kind !== 'tag') continue;
    const tagged = index.tags.get(predicate.folded);
    const size = tagged?.size ?? 0;
    if (best !== null && best.size <= size) continue;
    best = { size, forEach: (visit) => tagged?.forEach(visit) };
  }
  return best;
}

/**
 * Steps to walk the rank order until `wanted` members turn up, when `members`
 * of `total` documents are members and they are spread evenly (at most `total`).
 */
export function walkSteps(members: number, wanted: number, total: number): number {
  return Math.min(total, (wanted * total) / Math.max(members, 1));
}

/**
 * Whether to enumerate `candidates` (about two heap steps each) rather than walk
 * the rank order; `selectivity` is the share of documents scope and filter keep.
 */
export function preferEnumerate(candidates: number, wanted: number, total: number, selectivity = 1): boolean {
  const enumerateSteps = 2 * candidates + wanted * Math.log2(candidates + 2);
  return enumerateSteps <= walkSteps(candidates * selectivity, wanted, total);
}
