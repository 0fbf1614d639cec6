/**
 * Markdown parsing on the worst 1 MiB documents a writer may publish
 * (src/protocol/limits.ts `maxBodyBytes`): every entry point of src/markdown
 * that the broker and the world call, and each broker tool path that parses a
 * body, called the way the tool calls it. All of it runs synchronously on the
 * event loop, so a call's CPU is how long every other caller of that process
 * waits. Each figure is the CPU time of one call (this process's user + system
 * time around it, the least of the rounds: the machine is shared, and the
 * least is the figure other work inflated least), beside the same call on a
 * 1 MiB plain paragraph in the same run (`x` is the ratio to it).
 * Run: `node bench/markdown-worst.ts [rounds] [shape,...]` (default 3 rounds, every shape).
 */
import { fileURLToPath } from 'node:url';
import {
  linksAndHeadings,
  MarkdownDocument,
  markdownBlocks,
  openingParagraph,
  outlineEntries,
} from '../src/markdown/index.ts';
import { splitSections } from '../src/search/index.ts';
import { documentShape } from '../src/broker/knowledge/document-shape.ts';
import { parseWorldDescriptor } from '../src/broker/knowledge/world-descriptor.ts';
import { documentLinks } from '../src/broker/graph/document-links.ts';
import { documentLinkBounds } from '../src/broker/graph/graph-bounds.ts';
import { WorldDirectory } from '../src/broker/graph/world-urls.ts';
import { fetchOutlineParts, fetchSectionParts, exploreCardParts } from './lib/markdown-tool-paths.ts';
import { maxBodyBytes } from '../src/protocol/limits.ts';

/** `unit` repeated up to 1 MiB (less `room` for what wraps it). */
function fill(unit: (i: number) => string, room = 64): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; ; i++) {
    const part = unit(i);
    if (size + part.length > maxBodyBytes - room) break;
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ';

/** The shapes, each about 1 MiB of ASCII. `paragraph` is the baseline. */
export const shapes: Record<string, () => string> = {
  paragraph: () => fill(() => `${words}\n`),
  'headings (same text)': () => fill(() => '# a\n'),
  'headings (distinct)': () => fill((i) => `## h${i}\n`),
  'headings with markup': () => fill((i) => `### *b* [l${i % 10}](/x) \`c\` <i>t</i>\n`),
  'setext heading of 1 MiB': () => `${fill(() => `${words}\n`)}===\n`,
  'links in a paragraph': () => fill((i) => (i % 8 === 7 ? `[t${i}](/d${i})\n` : `[t${i}](/d${i}) `)),
  'reference links': () => `[r]: /ref\n\n${fill(() => '[r] ')}`,
  'deep lists': () => fill((i) => `${'  '.repeat(i % 64)}- item ${i}\n`),
  'long table': () => `| a | b | c |\n|---|---|---|\n${fill((i) => `| ${i} | [x](/y) | z |\n`, 128)}`,
  'many fences': () => fill((i) => `\`\`\`\ncode ${i}\n\`\`\`\n`),
};

const worlds = new WorldDirectory([]);
const docUrl = 'mark://bench/worst.md';

/** What each broker or world path calls on a body. */
export const paths: Record<string, (body: string) => unknown> = {
  markdownBlocks: (body) => markdownBlocks(body),
  outlineEntries: (body) => outlineEntries(body),
  linksAndHeadings: (body) => linksAndHeadings(body),
  openingParagraph: (body) => openingParagraph(body),
  'search splitSections': (body) => splitSections(body),
  'mark_fetch outline': (body) => fetchOutlineParts(docUrl, body),
  'mark_fetch #missing': (body) => fetchSectionParts(docUrl, body, 'missing'),
  'mark_explore card': (body) => exploreCardParts(docUrl, body),
  'graph documentLinks': (body) => documentLinks(docUrl, body, {}, worlds, documentLinkBounds),
  'policy documentShape': (body) => documentShape(new MarkdownDocument(body)),
  'world descriptor': (body) => parseWorldDescriptor(body),
};

function cpuMs(run: () => unknown): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

export type WorstRow = { shape: string; path: string; ms: number; baselineMs: number };

export function runMarkdownWorst(rounds: number, only?: readonly string[]): WorstRow[] {
  const baseline = shapes.paragraph!();
  const rows: WorstRow[] = [];
  for (const [shape, make] of Object.entries(shapes)) {
    if (only !== undefined && !only.includes(shape)) continue;
    const body = make();
    for (const [path, run] of Object.entries(paths)) {
      run(baseline); // warm-up
      // The baseline in the same rounds, alternated with the shape: load and JIT state move both alike.
      const times: number[] = [];
      const baselineTimes: number[] = [];
      for (let round = 0; round < rounds; round++) {
        baselineTimes.push(cpuMs(() => run(baseline)));
        times.push(cpuMs(() => run(body)));
      }
      rows.push({ shape, path, ms: Math.min(...times), baselineMs: Math.min(...baselineTimes) });
    }
  }
  return rows;
}

export function formatMarkdownWorst(rows: readonly WorstRow[]): string {
  const lines = [
    `${'shape'.padEnd(26)} ${'path'.padEnd(22)} ${'ms CPU'.padStart(9)} ${'para ms'.padStart(8)} ${'x para'.padStart(8)}`,
  ];
  for (const row of rows)
    lines.push(
      `${row.shape.padEnd(26)} ${row.path.padEnd(22)} ${row.ms.toFixed(1).padStart(9)} ${row.baselineMs.toFixed(1).padStart(8)} ${(row.ms / row.baselineMs).toFixed(1).padStart(8)}`,
    );
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv[2] ?? 3);
  const only = process.argv[3]?.split(',');
  const baseline = shapes.paragraph!();
  console.log(`baseline: a plain paragraph of ${baseline.length} bytes; ${rounds} rounds, least CPU per call`);
  console.log(formatMarkdownWorst(runMarkdownWorst(rounds, only)));
}
