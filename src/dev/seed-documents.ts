/**
 * The small, linked knowledge base `npm start` seeds on first run: a hub world
 * (`root`) and two team worlds that link to each other, with tags, importance,
 * titles, a typed `rel-supersedes` edge and a `/graph.md` on the hub.
 */
export type SeedDocument = {
  path: string;
  metadata: Record<string, string>;
  body: string;
};

export type SeedWorld = { name: string; documents: SeedDocument[] };

export const seedWorlds: SeedWorld[] = [
  {
    name: 'root',
    documents: [
      {
        path: '/index.md',
        metadata: { title: 'Organisation knowledge hub', tags: 'hub, index', importance: '0.95' },
        body: `# Organisation knowledge hub

Start here. Each team keeps its own world; this hub links them together.

## Teams

- [Team A: identity and access](mark://team-a/index.md)
- [Team B: search and discovery](mark://team-b/index.md)

## Shared guides

- [Onboarding](guides/onboarding.md)
- [Architecture decisions](adr/index.md)
`,
      },
      {
        path: '/guides/onboarding.md',
        metadata: {
          tags: 'onboarding, guide',
          importance: '0.8',
          description: 'First-week checklist for new engineers',
        },
        body: `# Onboarding

Welcome. In your first week:

1. Read the [architecture decisions](../adr/index.md).
2. Ask Team A for access: see their [access runbook](mark://team-a/docs/runbook.md).
3. Learn how search works from [Team B's search notes](mark://team-b/docs/search.md).

## Tools

Agents reach every world through the broker's MCP endpoint; people use the \`mark\` client.
`,
      },
      {
        path: '/adr/index.md',
        metadata: { title: 'Architecture decisions', tags: 'adr, index', importance: '0.7' },
        body: `# Architecture decisions

- [ADR 0001: QUIC for the document protocol](0001-quic.md)
- [ADR 0002: One world per team](0002-world-per-team.md)
`,
      },
      {
        path: '/adr/0001-quic.md',
        metadata: { tags: 'adr, transport, quic', importance: '0.6', type: 'Decision' },
        body: `# ADR 0001: QUIC for the document protocol

## Context

Agents open many short requests. TCP+TLS costs a round trip per connection.

## Decision

Speak the Mark Protocol over QUIC with ALPN \`mark\` on port 6309, one stream per request.

## Consequences

Connections are pooled per authority; writes are never retried blindly.
`,
      },
      {
        path: '/adr/0002-world-per-team.md',
        metadata: {
          tags: 'adr, tenancy',
          importance: '0.6',
          type: 'Decision',
          'rel-supersedes': '/adr/0000-single-store.md',
        },
        body: `# ADR 0002: One world per team

## Decision

Each team runs its own world with its own tokens and catalog; the broker joins them.
This supersedes the earlier single shared store.

See [Team A](mark://team-a/index.md) and [Team B](mark://team-b/index.md).
`,
      },
    ],
  },
  {
    name: 'team-a',
    documents: [
      {
        path: '/index.md',
        metadata: { title: 'Team A: identity and access', tags: 'team-a, index', importance: '0.9' },
        body: `# Team A: identity and access

We own sign-in, tokens and access reviews.

- [Auth design](docs/auth-design.md)
- [Access runbook](docs/runbook.md)
- Back to the [hub](mark://root/index.md)
`,
      },
      {
        path: '/docs/auth-design.md',
        metadata: {
          title: 'Auth design',
          tags: 'auth, oidc, design',
          importance: '0.85',
          description: 'How people and agents sign in',
        },
        body: `# Auth design

## Sign-in

People sign in with the organisation's OIDC provider. CLI agents use the device flow;
desktop agents use authorization code with PKCE.

## Tokens

Access tokens are short-lived ES256 JWTs. Refresh tokens rotate on every use; a replayed
refresh token revokes its whole family.

## Related

The search team indexes these notes: [search notes](mark://team-b/docs/search.md).
`,
      },
      {
        path: '/docs/runbook.md',
        metadata: { title: 'Access runbook', tags: 'runbook, access, oncall', importance: '0.75' },
        body: `# Access runbook

## Grant write access

Add the person's email to the world's writer allowlist, then ask them to sign in again.

## Rotate a world token

Mint a new token with \`demarkus-broker world token\`, add its entry to tokens.toml; the
world reloads the file without a restart.

See also the [auth design](auth-design.md).
`,
      },
    ],
  },
  {
    name: 'team-b',
    documents: [
      {
        path: '/index.md',
        metadata: { title: 'Team B: search and discovery', tags: 'team-b, index', importance: '0.9' },
        body: `# Team B: search and discovery

We own LOOKUP, full-text search and the link graph.

- [Search notes](docs/search.md)
- [Meeting notes, November](notes/2026-11-meeting.md)
- Back to the [hub](mark://root/index.md)
`,
      },
      {
        path: '/docs/search.md',
        metadata: {
          title: 'Search notes',
          tags: 'search, lookup, ranking',
          importance: '0.8',
          description: 'How catalog and body lookup rank documents',
        },
        body: `# Search notes

## Catalog lookup

LOOKUP matches declared tags exactly and titles by substring, ranked by score, importance
and recency.

## Body match

\`match: body\` finds sections whose text carries every query term, ranked with BM25.

## Cross-world search

The broker merges results from every world into one ranking. Access rules come from
[Team A's auth design](mark://team-a/docs/auth-design.md).
`,
      },
      {
        path: '/notes/2026-11-meeting.md',
        metadata: { tags: 'meeting, notes', importance: '0.3', type: 'Note' },
        body: `# Meeting notes, November

- Agreed to publish the link graph to the hub every hour.
- Onboarding guide needs a search section: [onboarding](mark://root/guides/onboarding.md).
`,
      },
    ],
  },
];
