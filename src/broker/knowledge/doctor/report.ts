import { escapeCell } from '../../../protocol/escape.ts';
import type { Finding } from './diagnose.ts';
import type { DoctorReport } from './report-cache.ts';

/**
 * The doctor's report as text: a status block (Go key: value lines, like
 * every tool), one table of findings for the requested page, and the worlds
 * that could not be covered. `partial` means some documents were not read,
 * so absence of a finding there proves nothing.
 */
export type ReportPage = { offset: number; limit: number; nextCursor?: string };

export function renderReport(report: DoctorReport, page: ReportPage): string {
  const { findings } = report;
  const shown = findings.slice(page.offset, page.offset + page.limit);
  const next = page.offset + shown.length;
  let out = `status: ${report.notExamined.length === 0 ? 'ok' : 'partial'}\n`;
  out += `worlds: ${report.worlds}\ndocuments: ${report.documents}\nfindings: ${findings.length}\n`;
  if (shown.length > 0) out += `shown: ${page.offset + 1}-${next}\n`;
  if (page.nextCursor !== undefined) out += `next-cursor: ${page.nextCursor}\n`;
  if (shown.length > 0) {
    out += '\n| kind | document | detail |\n|------|----------|--------|\n';
    for (const finding of shown) {
      const [documents, detail] = describe(finding);
      out += `| ${finding.kind} | ${escapeCell(documents)} | ${escapeCell(detail)} |\n`;
    }
  }
  if (report.notExamined.length > 0) {
    out += '\n## Not examined\n\n| world | reason |\n|-------|--------|\n';
    for (const gap of report.notExamined) out += `| ${escapeCell(gap.world)} | ${escapeCell(gap.reason)} |\n`;
  }
  return out;
}

function describe(finding: Finding): [string, string] {
  switch (finding.kind) {
    case 'exact-duplicate':
      return [
        finding.urls.join(', '),
        `identical content (${finding.hash.slice(0, 19)}...): keep one, link or archive the rest`,
      ];
    case 'near-duplicate':
      return [
        finding.urls.join(', '),
        `${Math.round(finding.similarity * 100)}% similar: merge them or say how they differ`,
      ];
    case 'policy':
      return [finding.url, `${finding.rule} (${finding.severity}): ${finding.problem}`];
    case 'untagged':
      return [finding.url, 'no tags: mark_lookup cannot find it by subject'];
    case 'broken-link':
      return [finding.url, `links to ${finding.target}, which does not exist`];
    case 'orphan':
      return [finding.url, 'no document links here: link it from an index or archive it'];
  }
}
