import { defaultGraphBounds } from '../graph-bounds.ts';
import type { FederationCrawlSummary } from './federation-crawl.ts';

/**
 * The crawl summary for the `demarkus-broker crawl` command: `summaryRecord`
 * for a JSON log line (everything but the state handed to the next run),
 * `summaryText` for a terminal.
 */
export function summaryRecord(summary: FederationCrawlSummary): Omit<FederationCrawlSummary, 'state'> {
  const { state: _state, ...record } = summary;
  return record;
}

export function summaryText(summary: FederationCrawlSummary): string {
  const lines = [
    `crawled ${summary.worlds.length} worlds into hub ${summary.hub}: fetched ${summary.documentsFetched}, unchanged ${summary.documentsSkipped}, failed ${summary.documentsFailed}; graph ${summary.nodes} nodes, ${summary.edges} edges`,
  ];
  for (const w of summary.worlds) {
    const state = w.complete
      ? 'complete'
      : `incomplete (${w.problems.slice(0, 3).join('; ')}${w.problems.length > 3 ? `; +${w.problems.length - 3} more` : ''})`;
    const cut = w.linksCut > 0 ? `, ${w.linksCut} with links cut at ${defaultGraphBounds.linksPerDocument}` : '';
    const share =
      w.exportLinksCut > 0 || w.exportDocumentsCut > 0
        ? `, ${w.exportDocumentsCut} documents and ${w.exportLinksCut} links left out of /graph.md (over its share)`
        : '';
    lines.push(
      `  ${w.world} (${w.address}): ${w.documents} documents, listed ${w.listed}, fetched ${w.fetched}${cut}${share}, unchanged ${w.skipped} (${w.skippedByCatalog} by catalog), failed ${w.failed}; ${state}`,
    );
  }
  for (const p of summary.published) {
    const version = p.version === undefined ? '' : ` v${p.version}`;
    lines.push(`  ${p.path}: ${p.outcome}${version}${p.detail ? ` (${p.detail})` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
