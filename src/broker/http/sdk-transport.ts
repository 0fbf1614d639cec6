import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/**
 * The SDK's web-standard Streamable HTTP transport, for sessions and the
 * stateless 2025-era requests, without the SDK's scope-challenge pass.
 * `McpServer.connect` installs a resolver on the transport that, on every
 * POST, parses each message again to pick out the requests and awaits the
 * called tool's, resource's or prompt's `scopeChallenge` hook (a resources/read
 * also parses its URI and matches it against every template). In the broker
 * that pass can never answer: scopes are checked before the SDK sees the
 * request (src/broker/http/scope-hook.ts), none of our registrations declares
 * a `scopeChallenge` (src/broker/http/register-definitions.ts), and the auth
 * info handed to the SDK carries no scopes (src/broker/http/auth-info.ts).
 * Left uninstalled, `handlePostRequest` skips it (docs/benchmarks.md,
 * "2026-12-07 (eighth session) Broker per-call CPU, second pass";
 * docs/decisions.md, "Scope challenges are the scope hook's alone").
 */
export class BrokerHttpTransport extends WebStandardStreamableHTTPServerTransport {
  override setScopeChallengeResolver(): void {}
}
