import { countText } from '../count-text.ts';
import { edgeAnnotation, goQuote } from './go-format.ts';
import type { BacklinkEntry, SeedOrigin } from './graph-store.ts';

/** Each mark_explore card section shows at most this many lines, then `+N more <noun>`. */
export const exploreSectionCap = 10;

/**
 * `- [Title](URL)<annotation>`, or `- URL<annotation>` for a source without a
 * title. A seeded source is another party's claim, so its title is quoted data
 * (never link text an agent could take for the broker's words) and the line
 * says which `/graph.md` it came from.
 */
export function backlinkLine(entry: BacklinkEntry): string {
  const annotation = edgeAnnotation(entry.rel, entry.label, entry.anchor, entry.count);
  if (entry.origin !== undefined) {
    const title = entry.title === '' ? '' : ` title ${goQuote(entry.title)}`;
    return `- ${entry.url}${title}${annotation} (${describeOrigin(entry.origin)})`;
  }
  return entry.title === '' ? `- ${entry.url}${annotation}` : `- [${entry.title}](${entry.url})${annotation}`;
}

function describeOrigin(origin: SeedOrigin): string {
  return origin.kind === 'hub'
    ? `seeded from the hub's federation crawl, mark://${origin.world}/graph.md`
    : `seeded from the world's own crawl, mark://${origin.world}/graph.md`;
}

/**
 * The backlinks section of the mark_explore card (mcp_tools_explore.go
 * writeBacklinksSection): a count heading, then capped lines or a note when
 * nothing is recorded. `withheldNote` (empty when none were) says the read-check
 * bound left linking documents unchecked (src/broker/graph/read-check.ts): the
 * count is then a lower bound, and an empty list is not "none recorded".
 * Starts with a blank line, ends with a newline.
 */
export function renderBacklinksSection(entries: readonly BacklinkEntry[], withheldNote = ''): string {
  let out = `\n## Backlinks (${entries.length}${withheldNote === '' ? '' : '+'})\n`;
  if (entries.length === 0) {
    if (withheldNote !== '') return out + withheldNote;
    return `${out}(none recorded; run mark_graph to populate; the broker's graph store is per-pod and resets on restart)\n`;
  }
  for (const entry of entries.slice(0, exploreSectionCap)) out += `${backlinkLine(entry)}\n`;
  if (entries.length > exploreSectionCap) out += `+${countText(entries.length - exploreSectionCap)} more backlinks\n`;
  return out + withheldNote;
}
