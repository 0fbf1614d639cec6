/**
 * Environment overrides, applied to the decoded YAML before validation so an
 * overridden value is checked like any other and errors name its key. A
 * variable set to the empty string counts as unset (Go broker rule: an
 * accidentally cleared variable must not blank out a file value).
 *
 * The Go broker's two secrets keep their names so chart Secrets carry over:
 *   OIDC_CLIENT_SECRET → oidc.clientSecret
 *   BROKER_SIGNING_KEY → oidc.brokerSigningKey
 * and the key to rotate to comes the same way (the chart fills it from a Secret):
 *   BROKER_NEXT_SIGNING_KEY → oidc.nextBrokerSigningKey
 * and a small DEMARKUS_BROKER_* set covers what differs between environments
 * running one config file (ports and the URLs behind an ingress):
 *   DEMARKUS_BROKER_ADDR           → server.addr
 *   DEMARKUS_BROKER_PUBLIC_URL     → server.publicURL
 *   DEMARKUS_BROKER_MCP_ADDR       → server.mcp.addr
 *   DEMARKUS_BROKER_MCP_PUBLIC_URL → server.mcp.publicURL
 *   DEMARKUS_BROKER_MANAGEMENT_ADDR → server.management.addr
 *   DEMARKUS_BROKER_STORAGE_DIR    → storage.dir
 *   DEMARKUS_BROKER_STATE_EPHEMERAL → state.ephemeral
 *   DEMARKUS_BROKER_REDIS_URL      → redis.url
 *   DEMARKUS_BROKER_REDIS_USERNAME → redis.username
 *   DEMARKUS_BROKER_REDIS_PASSWORD → redis.password (the chart fills it from a Secret)
 *   DEMARKUS_BROKER_COOKIE_KEY     → server.cookieKey (the chart fills it from a Secret:
 *     `server.existingCookieKeyRef`, for renders that cannot look the stored key up)
 */
export const envOverrides: ReadonlyArray<{ variable: string; path: readonly string[] }> = [
  { variable: 'OIDC_CLIENT_SECRET', path: ['oidc', 'clientSecret'] },
  { variable: 'BROKER_SIGNING_KEY', path: ['oidc', 'brokerSigningKey'] },
  { variable: 'BROKER_NEXT_SIGNING_KEY', path: ['oidc', 'nextBrokerSigningKey'] },
  { variable: 'DEMARKUS_BROKER_ADDR', path: ['server', 'addr'] },
  { variable: 'DEMARKUS_BROKER_PUBLIC_URL', path: ['server', 'publicURL'] },
  { variable: 'DEMARKUS_BROKER_MCP_ADDR', path: ['server', 'mcp', 'addr'] },
  { variable: 'DEMARKUS_BROKER_MCP_PUBLIC_URL', path: ['server', 'mcp', 'publicURL'] },
  { variable: 'DEMARKUS_BROKER_MANAGEMENT_ADDR', path: ['server', 'management', 'addr'] },
  { variable: 'DEMARKUS_BROKER_STORAGE_DIR', path: ['storage', 'dir'] },
  { variable: 'DEMARKUS_BROKER_STATE_EPHEMERAL', path: ['state', 'ephemeral'] },
  { variable: 'DEMARKUS_BROKER_REDIS_URL', path: ['redis', 'url'] },
  { variable: 'DEMARKUS_BROKER_REDIS_USERNAME', path: ['redis', 'username'] },
  { variable: 'DEMARKUS_BROKER_REDIS_PASSWORD', path: ['redis', 'password'] },
  { variable: 'DEMARKUS_BROKER_COOKIE_KEY', path: ['server', 'cookieKey'] },
];

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Writes every set variable into `document` (a plain object tree, modified in
 * place) and returns which key paths came from which variable, for messages.
 */
export function applyEnvOverrides(document: Record<string, unknown>, env: Env): Map<string, string> {
  const sources = new Map<string, string>();
  for (const { variable, path } of envOverrides) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    setPath(document, path, value);
    sources.set(path.join('.'), variable);
  }
  return sources;
}

function setPath(document: Record<string, unknown>, path: readonly string[], value: string): void {
  let node = document;
  for (const key of path.slice(0, -1)) {
    const child = node[key];
    // A non-map here is left for the schema to reject with its own message.
    if (child === undefined) node[key] = {};
    else if (!isPlainObject(child)) return;
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
