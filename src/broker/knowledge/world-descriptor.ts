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
    title,
    summary: plainText(firstSentence(shape.leadParagraph)),
    owners: fromMetadata.length > 0 ? fromMetadata : sectionListItems(doc, ownerAnchors),
    holds: sectionListItems(doc, holdsAnchors),
  };
}
