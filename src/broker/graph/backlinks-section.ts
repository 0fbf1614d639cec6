import { edgeAnnotation } from './go-format.ts';
import type { BacklinkEntry } from './graph-store.ts';

/** Each mark_explore card section shows at most this many lines, then `+N more <noun>`. */
export const exploreSectionCap = 10;

/** `- [Title](URL)<annotation>`, or `- URL<annotation>` for a source without a title. */
export function backlinkLine(entry: BacklinkEntry): string {
  const annotation = edgeAnnotation(entry.rel, entry.label, entry.anchor, entry.count);
  return entry.title === '' ? `- ${entry.url}${annotation}` : `- [${entry.title}](${entry.url})${annotation}`;
}

/**
 * The backlinks section of the mark_explore card (mcp_tools_explore.go
 * writeBacklinksSection): a count heading, then capped lines or a note when
 * nothing is recorded. Starts with a blank line, ends with a newline.
 */
export function renderBacklinksSection(entries: readonly BacklinkEntry[]): string {
  let out = `\n## Backlinks (${entries.length})\n`;
  if (entries.length === 0) {
    return `${out}(none recorded; run mark_graph to populate; the broker's graph store is per-pod and resets on restart)\n`;
  }
  for (const entry of entries.slice(0, exploreSectionCap)) out += `${backlinkLine(entry)}\n`;
  if (entries.length > exploreSectionCap) out += `+${entries.length - exploreSectionCap} more backlinks\n`;
  return out;
}
