/**
 * `/.well-known/agent-manifest.md`: an ordinary document, always readable
 * without a token. When the world has not published one, it serves this
 * generated manifest so agents still learn what the server can do.
 */
export const manifestPath = '/.well-known/agent-manifest.md';

export function generatedManifest(worldName: string, capabilities: { bodySearch: boolean }): string {
  return [
    `# ${worldName}`,
    '',
    '## Description',
    '',
    `A Mark Protocol world served by demarkus-broker's TypeScript world server.`,
    '',
    '## Auth',
    '',
    'Reads are public unless a path is covered by a read token. Writes need a token with the publish operation, sent as `auth` metadata.',
    '',
    '## Capabilities',
    '',
    '- verbs: FETCH, LIST, VERSIONS, LOOKUP, PUBLISH, APPEND, ARCHIVE',
    `- lookup-match: ${capabilities.bodySearch ? 'catalog, body' : 'catalog'}`,
    '- content-addressed fetch: /sha256-<hex>',
    '',
  ].join('\n');
}
