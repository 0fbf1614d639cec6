import type { Metadata } from '../../../protocol/metadata.ts';
import { hasHiddenSegment } from '../../../protocol/paths.ts';
import { documentLinks, type WorldDirectory } from '../../graph/index.ts';
import { listedAsAbsent, type WorldListing } from '../../worlds/index.ts';
import { checkSubmission } from '../policy-check.ts';
import { examineFewerWorlds } from './corpus.ts';
import type { Policy, Severity } from '../policy.ts';
import { isPublishingStandard } from '../publishing-standard.ts';
import { maxNearComparisons, nearDuplicates } from './near-duplicates.ts';
import { countText } from '../../count-text.ts';

/**
 * The knowledge doctor's judgement over a set of read documents (pure: the
 * corpus is collected elsewhere). Each finding is something a person can act
 * on: merge the duplicates, fix the rule, tag the document, fix or remove the
 * link, link the orphan from somewhere or archive it.
 */
export type DoctorDocument = { world: string; path: string; body: string; metadata: Metadata; hash: string };

export type Finding =
  | { kind: 'exact-duplicate'; hash: string; urls: string[] }
  | { kind: 'near-duplicate'; similarity: number; urls: [string, string] }
  | { kind: 'policy'; url: string; rule: string; severity: Severity; problem: string }
  | { kind: 'untagged'; url: string }
  | { kind: 'broken-link'; url: string; target: string }
  | { kind: 'orphan'; url: string };

export type FindingKind = Finding['kind'];

/** The findings, and whether the near-duplicate search scored every candidate pair (see `maxNearComparisons`). */
export type Diagnosis = { findings: Finding[]; nearDuplicatesComplete: boolean };

/** Why a report whose near-duplicate search ran out of comparisons is partial, and what to do about it. */
export const nearDuplicatesStopped =
  `near-duplicate search stopped after ${countText(maxNearComparisons)} comparisons: too many documents ` +
  `are alike, so some near duplicates are not reported; ${examineFewerWorlds}`;
export const findingKinds: readonly FindingKind[] = [
  'exact-duplicate',
  'near-duplicate',
  'policy',
  'untagged',
  'broken-link',
  'orphan',
];

export type DiagnoseInput = {
  documents: readonly DoctorDocument[];
  policy: Policy | undefined;
  /** The world that holds the standard: only its standard documents are exempt from the policy. */
  hub: string;
  directory: WorldDirectory;
  /**
   * Worlds whose every listed document was read, with their listings: only there can a link target be called
   * broken, and only when the listing shows it missing (it names the hub's generated files, which are not read).
   */
  completeWorlds: ReadonlyMap<string, WorldListing>;
  /** Whether every world was read in full: only then can "nothing links here" be said of a document. */
  judgeOrphans: boolean;
  /** Jaccard similarity of word 3-grams at or above which two documents are near duplicates (0.5 to 1). */
  nearThreshold: number;
};

/**
 * Entry points that nothing needs to link to: reached by their fixed names, as are documents LIST hides
 * (`/.well-known/…`, any dot directory or `versions` directory; `hasHiddenSegment`).
 */
const rootDocuments = new Set(['/index.md', '/world.md']);

function isEntryPoint(path: string): boolean {
  return rootDocuments.has(path) || hasHiddenSegment(path);
}

export function diagnose(input: DiagnoseInput): Diagnosis {
  const { documents } = input;
  const urls = documents.map((doc) => `mark://${doc.world}${doc.path}`);
  const known = new Set(urls);
  const findings: Finding[] = [];

  const byHash = new Map<string, number[]>();
  documents.forEach((doc, i) => {
    if (doc.body.trim() === '') return;
    byHash.set(doc.hash, [...(byHash.get(doc.hash) ?? []), i]);
  });
  const representatives: number[] = [];
  for (const [hash, members] of byHash) {
    representatives.push(members[0]!);
    if (members.length > 1) findings.push({ kind: 'exact-duplicate', hash, urls: members.map((i) => urls[i]!).sort() });
  }

  representatives.sort((a, b) => a - b);
  const near = nearDuplicates(
    representatives.map((i) => documents[i]!.body),
    input.nearThreshold,
  );
  for (const pair of near.pairs) {
    const a = urls[representatives[pair.a]!]!;
    const b = urls[representatives[pair.b]!]!;
    findings.push({ kind: 'near-duplicate', similarity: pair.similarity, urls: a < b ? [a, b] : [b, a] });
  }

  const inbound = new Map<string, number>();
  documents.forEach((doc, i) => {
    const url = urls[i]!;
    if (input.policy && !isPublishingStandard(input.hub, doc.world, doc.path))
      for (const v of checkSubmission(input.policy, doc, 'document'))
        findings.push({ kind: 'policy', url, rule: v.rule, severity: v.severity, problem: v.problem });
    if ((doc.metadata.tags ?? '').trim() === '') findings.push({ kind: 'untagged', url });
    const broken = new Set<string>();
    for (const edge of documentLinks(url, doc.body, doc.metadata, input.directory).edges) {
      const target = edge.to.replace(/[?#].*$/, '');
      if (target === url) continue;
      inbound.set(target, (inbound.get(target) ?? 0) + 1);
      if (isBroken(target, known, input)) broken.add(target);
    }
    for (const target of broken) findings.push({ kind: 'broken-link', url, target });
  });

  if (input.judgeOrphans)
    documents.forEach((doc, i) => {
      if (!isEntryPoint(doc.path) && (inbound.get(urls[i]!) ?? 0) === 0)
        findings.push({ kind: 'orphan', url: urls[i]! });
    });
  const keyed = findings.map((finding) => ({
    finding,
    rank: findingKinds.indexOf(finding.kind),
    key: findingKey(finding),
  }));
  keyed.sort(compareKeyed);
  return { findings: keyed.map((entry) => entry.finding), nearDuplicatesComplete: near.complete };
}

function isBroken(target: string, known: ReadonlySet<string>, input: DiagnoseInput): boolean {
  const match = /^mark:\/\/([^/]+)(\/.*)$/.exec(target);
  if (match === null || !match[2]!.endsWith('.md') || known.has(target)) return false;
  // A link into a world that was not read in full (or is not ours) cannot be judged, nor one under an
  // entry LIST hides (a dot directory, `versions`; Mark SPEC LIST "Excluded"): no world is read there.
  const listing = input.completeWorlds.get(match[1]!);
  if (listing === undefined || hasHiddenSegment(match[2]!)) return false;
  // Not read is not missing: the hub's generated files are listed but skipped (`/graph.md`), or not listed at
  // all (`/index/`, whose directory is not walked); only a target the listing shows absent is broken.
  return listedAsAbsent(listing, match[2]!);
}

type Keyed = { finding: Finding; rank: number; key: string };

/** Kind order, then the most similar near duplicates first, then by URL (code-point order, stable across locales). */
function compareKeyed(a: Keyed, b: Keyed): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  const x = a.finding;
  const y = b.finding;
  if (x.kind === 'near-duplicate' && y.kind === 'near-duplicate' && x.similarity !== y.similarity)
    return y.similarity - x.similarity;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function findingKey(finding: Finding): string {
  switch (finding.kind) {
    case 'exact-duplicate':
    case 'near-duplicate':
      return finding.urls.join(' ');
    case 'policy':
      return `${finding.url} ${finding.rule} ${finding.problem}`;
    case 'broken-link':
      return `${finding.url} ${finding.target}`;
    default:
      return finding.url;
  }
}
