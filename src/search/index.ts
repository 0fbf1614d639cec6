/**
 * src/search: the pure lexical ranker (tokenizer with CJK unigrams, light stemming,
 * markdown sections, fielded BM25 over postings, snippets, nearest titles).
 * Imports nothing of ours; see search-index.ts for the entry point.
 */
export { SearchIndex, defaultSearchLimit } from './search-index.ts';
export { runSliced } from './slices.ts';
export type { Sliced, SliceOptions } from './slices.ts';
export type {
  IndexStats,
  QueryStatsOptions,
  SearchIndexOptions,
  ZeroResultHelp,
  ZeroResultOptions,
} from './search-index.ts';
export type { CorpusTotals, MatchMode, QueryStats, SearchDoc, SearchOptions, SearchRow } from './types.ts';
export { mergeQueryStats, fieldAverages, dfOf } from './stats.ts';
export type { FieldAverages } from './stats.ts';
export { parseQuery, maxQueryTerms } from './query-terms.ts';
export type { QueryTerm } from './query-terms.ts';
export { stem, stopwords } from './stem.ts';
export { fieldTokens, wordRuns, isCjkChar, utf8Length, maxTokenBytes } from './tokenize.ts';
export { splitSections } from './sections.ts';
export type { MarkdownSection } from './sections.ts';
export { cutSnippet, maxSnippetBytes } from './snippet.ts';
export { editDistance, wordSimilarity } from './nearest-titles.ts';
export type { NearTitle } from './nearest-titles.ts';
export {
  lookupExtensionKeys,
  statsOnlyValue,
  ownStatsValue,
  maxNearestTitles,
  LookupExtensionError,
  encodeQueryStats,
  decodeQueryStats,
  encodeScores,
  decodeScores,
  encodeNearest,
  decodeNearest,
  parseNearestCount,
} from './lookup-extension.ts';
export type { NearestTitleEntry } from './lookup-extension.ts';
