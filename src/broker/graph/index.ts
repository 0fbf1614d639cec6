/** The broker's link graph: store, crawler, `/graph.md` export and seeding, federation crawl (its tools live in src/broker/mcp/tools). */
export {
  BrokerGraph,
  type BrokerGraphOptions,
  type GraphCrawl,
  type ShownBacklinks,
  type ShownExport,
  type ShownExportPage,
} from './graph-service.ts';
export { readCheckBudgetPerWorld, readChecksPerAnswer } from './read-check.ts';
export {
  GraphStore,
  type BacklinkEntry,
  type Provenance,
  type SeedOrigin,
  type StoredNode,
  type StoredEdge,
  type MergeOutcome,
} from './graph-store.ts';
export { defaultGraphBounds } from './graph-bounds.ts';
export { CrawledGraph } from './crawled-graph.ts';
export {
  crawl,
  defaultCrawlLimits,
  maxCrawlDepth,
  type CrawlLimits,
  type CrawlResult,
  type DocumentFetcher,
} from './crawler.ts';
export { GraphSeeder, seedCheckIntervalMs, seedPath, type SeedLog } from './seeder.ts';
export { buildExport, parseExport, type ExportEdge, type ExportNode, type ParsedExport } from './graph-export.ts';
export { exportPageRowBytes, type ExportPage } from './export-page.ts';
export { documentLinks, relReferences } from './document-links.ts';
export { canonicalMarkUrl, documentUrl, isMarkUrl, resolveLinkTarget, resolveReference } from './link-url.ts';
export { WorldDirectory } from './world-urls.ts';
export { edgeAnnotation, goQuote } from './go-format.ts';
export { compareEdges, compareUtf8, type GraphEdge, type GraphNode } from './model.ts';
export { renderBacklinksSection, backlinkLine, exploreSectionCap } from './backlinks-section.ts';
export {
  runFederationCrawl,
  crawlerIdentity,
  defaultFederationLimits,
  FederationCrawlError,
  type FederationCrawlOptions,
  type FederationCrawlSummary,
  type FederationLimits,
  type WorldSummary,
} from './federation/federation-crawl.ts';
export type { FederationCrawlState, WorldCrawlState, DocumentRecord } from './federation/crawl-record.ts';
export type { PublishOutcome } from './federation/hub-publish.ts';
export { summaryRecord, summaryText } from './federation/summary-text.ts';
export { graphOutputPath, indexOutputPath, isHubOutput } from './federation/hub-outputs.ts';
export { crawlStatePath } from './federation/crawl-state.ts';
