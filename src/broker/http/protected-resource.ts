/** What the MCP listener says about itself as an OAuth protected resource (RFC 9728). */
export type ProtectedResource = {
  /** The resource identifier: the public MCP URL, without a trailing slash (RFC 9728 §1.2). */
  resource: string;
  /** RFC 9728 §3.1: the path-inserted well-known URL, advertised in `resource_metadata`. */
  metadataUrl: string;
  /** Local paths that serve the document: the root form and every path-inserted form. */
  metadataPaths: readonly string[];
  document: ProtectedResourceMetadata;
};

export type ProtectedResourceMetadata = {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: ['header'];
  scopes_supported?: string[];
};

export const mcpPath = '/mcp';
const wellKnownPrefix = '/.well-known/oauth-protected-resource';

export type ProtectedResourceOptions = {
  /** Public origin (and optional path prefix) of the MCP listener, e.g. `https://mcp.example.com`. */
  publicUrl: string;
  /** Issuer URLs of the authorization servers clients should sign in with (RFC 9728 §2). */
  authorizationServers: readonly string[];
  /** Advisory scopes (RFC 9728 `scopes_supported`); never checked. */
  scopes?: readonly string[];
};

export function protectedResource(options: ProtectedResourceOptions): ProtectedResource {
  const base = new URL(options.publicUrl);
  if (base.search !== '' || base.hash !== '')
    throw new RangeError(`publicUrl must not carry a query or fragment: ${options.publicUrl}`);
  if (options.authorizationServers.length === 0)
    throw new RangeError('protected resource needs at least one authorization server (RFC 9728 §2)');
  const prefix = base.pathname.replace(/\/+$/, '');
  const resourcePath = `${prefix}${mcpPath}`;
  const resource = `${base.origin}${resourcePath}`;
  const document: ProtectedResourceMetadata = {
    resource,
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ['header'],
  };
  if (options.scopes !== undefined && options.scopes.length > 0) document.scopes_supported = [...options.scopes];
  // Behind a path-routing ingress the public path-inserted form differs from the local one; serve both.
  const metadataPaths = [
    ...new Set([wellKnownPrefix, `${wellKnownPrefix}${mcpPath}`, `${wellKnownPrefix}${resourcePath}`]),
  ];
  return { resource, metadataUrl: `${base.origin}${wellKnownPrefix}${resourcePath}`, metadataPaths, document };
}
