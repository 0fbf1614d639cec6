/**
 * Defaults that depend on other keys, filled in once at load so consumers read
 * one value: the MCP public URL falls back to `server.publicURL` (as the Go
 * chart does), and the DNS-rebinding allowlists default to what those two
 * public URLs say clients will send.
 */
import type { ParsedBrokerConfig } from './schema.ts';

export function resolveDerived(parsed: ParsedBrokerConfig) {
  const mcpPublicURL = parsed.server.mcp.publicURL ?? parsed.server.publicURL;
  const publicUrls = [new URL(mcpPublicURL), new URL(parsed.server.publicURL)];
  return {
    ...parsed,
    server: {
      ...parsed.server,
      /** MCP spec (Streamable HTTP, security warning): servers MUST validate `Origin` against DNS rebinding. */
      // A CORS origin is one the operator expects browsers to send, so the rebinding guard accepts it too.
      allowedOrigins: unique([
        ...(parsed.server.allowedOrigins ?? publicUrls.map((url) => url.origin)),
        ...parsed.server.cors.allowedOrigins,
      ]),
      allowedHosts: parsed.server.allowedHosts ?? unique(publicUrls.map((url) => url.host)),
      mcp: { ...parsed.server.mcp, publicURL: mcpPublicURL },
    },
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
