/** The knowledge doctor (docs/knowledge.md "mark_doctor"): collect what the caller may read, judge it, report it. */
export { collectCorpus, defaultCorpusLimits, type Corpus, type CorpusLimits } from './corpus.ts';
export {
  diagnose,
  findingKinds,
  nearDuplicatesStopped,
  type DoctorDocument,
  type Finding,
  type FindingKind,
} from './diagnose.ts';
export { nearDuplicates, jaccard, maxNearComparisons, shingles } from './near-duplicates.ts';
export { renderReport, type ReportPage } from './report.ts';
export { DoctorBusyError, DoctorRuns, type DoctorReport, type DoctorRunsOptions } from './report-cache.ts';
