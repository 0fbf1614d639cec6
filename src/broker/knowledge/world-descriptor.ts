import { MarkdownDocument, plainText } from '../../markdown/index.ts';
import { documentShape, firstSentence, sectionListItems } from './document-shape.ts';

/**
 * A world's description of itself, read from its `/world.md` (docs/knowledge.md
 * "World descriptors"): the H1 is the world's title, the sentence under it
 * the summary, an `## Owners` list who answers for it, and a `## What it
 * holds` list what goes where. Metadata `owners` (a comma list) wins over the
 * section, for worlds that keep owners in metadata.
 */
export const worldDescriptorPath = '/world.md';

export type WorldDescriptor = {
  title: string;
  summary: string;
  owners: string[];
  holds: string[];
};

/**
 * How much of a world.md `mark_worlds` shows. Every caller's `mark_worlds` carries every world's
 * descriptor, so one world's 980 KB world.md made each call about 2 MB for everyone: a descriptor
 * is a few lines, and these bounds are far above any real one (docs/knowledge.md "World descriptors").
 */
export const descriptorLimits = {
  /** A world.md larger than this (UTF-8 bytes) is not parsed; mark_worlds says it is too large. */
  maxBytes: 64 * 1024,
  /** Characters of the title, of the summary, and of each owner or holds item; longer ones end in `…`. */
  maxTextChars: 200,
  /** Owners and holds items shown each; the rest are counted in a last item, `and N more`. */
  maxItems: 20,
} as const;

const ownerAnchors = ['owners', 'owner', 'maintainers'];
const holdsAnchors = ['what-it-holds', 'holds', 'contents', 'what-goes-where'];

export function parseWorldDescriptor(body: string, metadata: Readonly<Record<string, string>> = {}): WorldDescriptor {
  // One reading for the shape and both sections.
  const doc = new MarkdownDocument(body);
  const shape = documentShape(doc);
  const title = metadata.title?.trim() || (shape.leadingH1?.text ?? shape.headings[0]?.text ?? '');
  const fromMetadata = (metadata.owners ?? '')
    .split(',')
    .map((owner) => owner.trim())
    .filter((owner) => owner !== '');
  return {
    title: clipped(title),
    summary: clipped(plainText(firstSentence(shape.leadParagraph))),
    owners: clippedList(fromMetadata.length > 0 ? fromMetadata : sectionListItems(doc, ownerAnchors)),
    holds: clippedList(sectionListItems(doc, holdsAnchors)),
  };
}

/** At most `maxTextChars` code points, the last of them `…` when the text was longer. */
function clipped(text: string): string {
  const max = descriptorLimits.maxTextChars;
  if (text.length <= max) return text;
  const points = [...text];
  return points.length <= max
    ? text
    : `${points
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

function clippedList(items: readonly string[]): string[] {
  const max = descriptorLimits.maxItems;
  const shown = items.slice(0, max).map(clipped);
  return items.length > max ? [...shown, `and ${items.length - max} more`] : shown;
}
