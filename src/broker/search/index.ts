/**
 * src/broker/search: full-text search across worlds (LOOKUP `match: body` in two
 * phases, one ranking on a shared scale), and the texts mark_search and
 * mark_lookup_all render from it. The MCP tools and the CLI both drive it.
 */
export { searchWorlds } from './search-worlds.ts';
export type { RememberedSearch, SearchOutcome, SearchWorldsRequest, WorldFailure } from './search-worlds.ts';
export { SearchStatsMemory, sameQueryStats } from './stats-memory.ts';
export type { StatsScope } from './stats-memory.ts';
export { phaseChecked, phaseOne, phaseTwo, WorldSearchError } from './world-phases.ts';
export type { CheckedAnswer, LookupFn, PhaseRequest, WorldAnswer } from './world-phases.ts';
export { mergeWorldRows, bestRowPerDocument } from './merge-rows.ts';
export type { Ranking, WorldRow } from './merge-rows.ts';
export { parseLookupRows } from './world-phases.ts';
export { LookupAnswerError, type ParsedLookupRow as TableRow } from '../../protocol/render/lookup.ts';
export { renderSearchText, parseSearchText, hitOf, browseHint } from './search-text.ts';
export type { NearHit, SearchHit, SearchText } from './search-text.ts';
export { renderBodyLookupAll } from './render-body-lookup-all.ts';
export { BrokerCallError, BrokerToolClient, callBrokerTool } from './broker-tool-client.ts';
export type { BrokerToolResult } from './broker-tool-client.ts';
export { fitQuery } from './fit-query.ts';
export { failureDetail } from './failure-detail.ts';
