import type { SeedDocument } from './seed-documents.ts';

/**
 * The knowledge layer of the dev stack (docs/knowledge.md): each world's
 * `/world.md` descriptor, and on the hub the org's publishing standard
 * (policy, template, style) that the broker reads and enforces.
 */
const descriptors: Record<string, SeedDocument> = {
  root: {
    path: '/world.md',
    metadata: { title: 'Organisation knowledge hub', tags: 'category:hub, world', importance: '0.9' },
    body: `# Organisation knowledge hub

The hub links every team's world and keeps what the whole organisation shares.

## Owners

- platform@example.com

## What it holds

- /guides/: guides for everyone, onboarding first
- /adr/: architecture decisions that span teams
- /.well-known/demarkus/: the publishing standard (policy, template, style)
`,
  },
  'team-a': {
    path: '/world.md',
    metadata: { title: 'Team A: identity and access', tags: 'category:team, world', importance: '0.9' },
    body: `# Team A: identity and access

Team A's designs and runbooks for sign-in, tokens and access reviews.

## Owners

- team-a@example.com

## What it holds

- /docs/: designs and runbooks
`,
  },
  'team-b': {
    path: '/world.md',
    metadata: { title: 'Team B: search and discovery', tags: 'category:team, world', importance: '0.9' },
    body: `# Team B: search and discovery

Team B's notes on LOOKUP, full-text search and the link graph.

## Owners

- team-b@example.com

## What it holds

- /docs/: how search and the graph work
- /notes/: meeting notes
`,
  },
};

const standard: SeedDocument[] = [
  {
    path: '/.well-known/demarkus/policy.md',
    metadata: { title: 'Publishing policy', tags: 'category:standard, policy', importance: '0.8' },
    body: `# Publishing policy

The rules every document published through the broker is checked against.

The broker reads the table below; the rest of this page is for people. A rule marked block
refuses the publish, ask asks the writer to confirm, warn publishes and reports the problem.

| rule | setting | severity |
|------|---------|----------|
| strictness | | warn |
| required-tags | category | warn |
| importance | 0.1 to 1 | warn |
| h1-first | | warn |
| summary-sentence | | warn |
| unique-headings | | ask |
| banned-characters | U+2014 | warn |
| no-frontmatter | | block |
| no-secrets | | block |
`,
  },
  {
    path: '/.well-known/demarkus/template.md',
    metadata: { title: 'World template', tags: 'category:standard, template', importance: '0.7' },
    body: `# World template

Every world keeps the same few folders, so people and agents know where to look.

## Layout

- /world.md: what the world holds and who owns it
- /index.md: the entry point, linking to the main documents
- /docs/: designs, references and runbooks
- /notes/: meeting notes and other dated records
`,
  },
  {
    path: '/.well-known/demarkus/style.md',
    metadata: { title: 'Writing style', tags: 'category:standard, style', importance: '0.7' },
    body: `# Writing style

How documents are written here, so that search and links find them.

## Rules

- The document's name is its H1, on the first line.
- One sentence under the H1 says what the document is.
- Every heading is unique: headings are link anchors.
- Use a colon or a comma where you would reach for a long dash.
- Metadata goes in the publish call, never in a frontmatter block in the body.
- Never paste a credential: link to where it is kept.
`,
  },
];

/** The documents of the knowledge layer a dev world is seeded with, beside its content. */
export function knowledgeSeeds(world: string): SeedDocument[] {
  const descriptor = descriptors[world];
  return [...(descriptor ? [descriptor] : []), ...(world === 'root' ? standard : [])];
}
