import { sha256Hex } from '../../../protocol/token.ts';
import type { GraphEdge } from '../model.ts';

/**
 * What a federation crawl knows about one document: enough to rebuild its
 * `/graph.md` rows and its content-index row without reading it again, and
 * the etag that tells whether it changed.
 */
export type DocumentRecord = {
  etag: string;
  contentHash: string;
  title: string;
  linkCount: number;
  /** Outgoing edges (aggregated), `mark://` targets only. */
  edges: GraphEdge[];
};

/**
 * The state one crawl hands to the next: records per world and path, and a
 * fingerprint of every hub output as it stands, so unchanged outputs are not
 * published again.
 */
export type FederationCrawlState = {
  worlds: Map<string, WorldCrawlState>;
  outputs: Map<string, string>;
};

export type WorldCrawlState = {
  records: Map<string, DocumentRecord>;
  /**
   * An instant in the world's own clock no later than the start of the last
   * crawl of it: any document changed since that crawl read it was modified
   * after this, so a catalog LOOKUP `modified-after` it finds every change.
   * Null until a crawl has read a document with a `modified` time.
   */
  changedAfter: Date | null;
};

export function emptyCrawlState(): FederationCrawlState {
  return { worlds: new Map(), outputs: new Map() };
}

/**
 * A hub output's content without its timestamp line (`> Exported:`,
 * `> Indexed:`, `> Crawled:`), hashed: two crawls that found the same thing
 * have the same fingerprint.
 */
export function outputFingerprint(body: string): string {
  return sha256Hex(body.replace(/^> (?:Exported|Indexed|Crawled): .*$/m, ''));
}
