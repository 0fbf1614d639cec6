import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { isLoopbackUrlHost } from '../transport/loopback.ts';
import { fetchFailureReason } from '../errors/fetch-failure.ts';
import { commandArgs } from './command-args.ts';
import { credentialsOnce, localIssuer, resolveIssuer, saveSignIn, type StoredSignIn } from './credentials.ts';
import { tokenSafeUrl } from './broker-destination.ts';
import { unavailableReason } from './broker-unavailable.ts';

const help = `demarkus-broker login [--issuer URL] [--client-id ID]

Signs you in with the device flow (RFC 8628): prints a URL and a code, waits
while you confirm the code in a browser and sign in at your identity provider,
then keeps the tokens in your config directory (0600), for whoami and MCP clients.

  --issuer URL      the broker's public URL (default: the last one you signed in to,
                    env DEMARKUS_BROKER_ISSUER, or ${localIssuer} for npm start)
  --client-id ID    OAuth client id (default demarkus-cli, the broker's built-in CLI client)`;

export const defaultCliClientId = 'demarkus-cli';

export type CliOutput = { out: (line: string) => void };
const consoleOutput: CliOutput = { out: (line) => console.log(line) };

/** The broker's AS metadata through openid-client; plain http is allowed for loopback development brokers only. */
export async function discoverBroker(issuer: string, clientId: string): Promise<oidc.Configuration> {
  const url = tokenSafeUrl(issuer, '--issuer');
  const loopback = isLoopbackUrlHost(url.hostname);
  return oidc
    .discovery(
      url,
      clientId,
      undefined,
      oidc.None(),
      url.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {},
    )
    .catch((error: unknown) => {
      const next = loopback
        ? 'is npm start (or demarkus-broker broker) running? npm start prints its sign-in address'
        : "check the URL (--issuer, the broker's public URL) and your network";
      const reason = unavailableReason(error) ?? fetchFailureReason(error);
      throw new Error(`cannot reach the broker at ${issuer}: ${reason}; ${next}`, { cause: error });
    });
}

export function toStoredSignIn(
  issuer: string,
  clientId: string,
  tokens: oidc.TokenEndpointResponse,
  previousRefresh?: string,
): StoredSignIn {
  const claims = decodeJwt(tokens.access_token);
  return {
    issuer,
    clientId,
    accessToken: tokens.access_token,
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : Date.now() + (tokens.expires_in ?? 900) * 1000,
    ...((tokens.refresh_token ?? previousRefresh) ? { refreshToken: tokens.refresh_token ?? previousRefresh } : {}),
    ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
  };
}

export async function runLoginCommand(args: string[], io: CliOutput = consoleOutput): Promise<number> {
  const parsed = commandArgs(args, { issuer: { type: 'string' }, 'client-id': { type: 'string' } }, help, {
    out: io.out,
  });
  if (parsed === null) return 0;
  const { values } = parsed;
  const credentials = credentialsOnce();
  // Read now, so a file that cannot be read fails before the person confirms a code in the browser,
  // not at the save step, with the new tokens issued and lost.
  await credentials();
  const issuer = await resolveIssuer(values.issuer, process.env, credentials);
  const clientId = values['client-id'] ?? defaultCliClientId;
  const config = await discoverBroker(issuer, clientId);
  const grant = await oidc
    .initiateDeviceAuthorization(config, { scope: 'openid email mark.read mark.write' })
    .catch((error: unknown) => {
      throw new Error(signInFailure(error, issuer), { cause: error });
    });
  io.out(`To sign in, open ${grant.verification_uri} and enter the code ${grant.user_code}`);
  if (grant.verification_uri_complete !== undefined) io.out(`(or open ${grant.verification_uri_complete})`);
  io.out('Waiting for you to finish in the browser...');
  // openid-client waits `interval` between polls and adds 5 s on slow_down (RFC 8628 §3.5).
  const tokens = await oidc.pollDeviceAuthorizationGrant(config, grant).catch((error: unknown) => {
    throw new Error(deviceGrantFailure(error, grant.expires_in, issuer), { cause: error });
  });
  const stored = toStoredSignIn(issuer, clientId, tokens);
  const path = await saveSignIn(stored);
  io.out(`Signed in${stored.email ? ` as ${stored.email}` : ''}. Tokens saved to ${path}`);
  return 0;
}

/** What went wrong while waiting for the browser, and what to do, instead of the library's words. */
export function deviceGrantFailure(error: unknown, expiresInSeconds: number, issuer: string): string {
  const again = `run demarkus-broker login --issuer ${issuer} again`;
  const code = (error as { error?: unknown } | null)?.error;
  if (code === 'access_denied') return `sign-in was denied in the browser (someone chose "Deny"); ${again} to retry`;
  if (code === 'expired_token' || (error instanceof Error && error.name === 'TimeoutError')) {
    const minutes = Math.max(1, Math.round(expiresInSeconds / 60));
    return `the code expired before it was confirmed (codes last ${minutes} minute${minutes === 1 ? '' : 's'}); ${again} and confirm the new code in time`;
  }
  return signInFailure(error, issuer);
}

/** A sign-in the broker could not start or finish: unavailable for now (wait), or refused (its error named). */
function signInFailure(error: unknown, issuer: string): string {
  const again = `run demarkus-broker login --issuer ${issuer} again`;
  const unavailable = unavailableReason(error);
  if (unavailable !== undefined)
    return `the broker at ${issuer} is unavailable (${unavailable}); try again shortly: ${again}`;
  const code = (error as { error?: unknown } | null)?.error;
  const description = (error as { error_description?: unknown } | null)?.error_description;
  if (typeof code === 'string')
    return `the broker refused the sign-in: ${code}${typeof description === 'string' ? ` (${description})` : ''}; ${again}`;
  return `sign-in failed: ${error instanceof Error ? error.message : String(error)}`;
}
