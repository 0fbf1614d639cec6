/**
 * The kept sign-in with an access token fit to use: refreshed when it is
 * about to expire, one process at a time. The refresh token rotates on every
 * use and the broker revokes the whole sign-in when a rotated-away one comes
 * back (src/broker/auth/tokens/refresh-tokens.ts, RFC 9700 §4.14.2), so the
 * refresh runs under the credentials lock and first reads the file again: a
 * process that waited finds the token another one just refreshed and uses it.
 */
import * as oidc from 'openid-client';
import {
  changeCredentials,
  credentialsOnce,
  resolveIssuer,
  type CredentialsFile,
  type StoredSignIn,
} from './credentials.ts';
import { discoverBroker, toStoredSignIn } from './login-command.ts';
import { unavailableReason } from './broker-unavailable.ts';

/** Refresh when the access token has less than this left, so it does not expire on its way. */
const refreshMarginMs = 60_000;

const fresh = (signIn: StoredSignIn) => signIn.expiresAt - Date.now() >= refreshMarginMs;

/**
 * The issuer `resolveIssuer` picks for `flag` and its sign-in, fresh (signIn
 * undefined when nobody signed in there). The file is read once for both; only
 * a refresh reads it again, under the lock.
 */
export async function chosenSignIn(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ issuer: string; signIn: StoredSignIn | undefined }> {
  const credentials = credentialsOnce(env);
  const issuer = await resolveIssuer(flag, env, credentials);
  return { issuer, signIn: await freshSignIn(issuer, credentials, env) };
}

/** The sign-in kept for `issuer`, refreshed if due; undefined when there is none. */
async function freshSignIn(
  issuer: string,
  credentials: () => Promise<CredentialsFile>,
  env: NodeJS.ProcessEnv,
): Promise<StoredSignIn | undefined> {
  const kept = (await credentials()).signIns[issuer];
  if (kept === undefined || fresh(kept)) return kept;
  return changeCredentials(async (file, save) => {
    const current = file.signIns[issuer];
    if (current === undefined || fresh(current)) return current;
    const next = await refreshed(current);
    // Only this sign-in changes: a refresh is not a choice of which sign-in is current.
    file.signIns[issuer] = next;
    await save();
    return next;
  }, env);
}

async function refreshed(signIn: StoredSignIn): Promise<StoredSignIn> {
  if (signIn.refreshToken === undefined)
    throw new Error(
      `the access token expired and there is no refresh token; run demarkus-broker login --issuer ${signIn.issuer}`,
    );
  let tokens: oidc.TokenEndpointResponse;
  try {
    const config = await discoverBroker(signIn.issuer, signIn.clientId);
    tokens = await oidc.refreshTokenGrant(config, signIn.refreshToken);
  } catch (error) {
    throw new Error(refreshFailure(error, signIn.issuer), { cause: error });
  }
  return toStoredSignIn(signIn.issuer, signIn.clientId, tokens, signIn.refreshToken);
}

/**
 * What a failed refresh means for the person. Only `invalid_grant` says the
 * sign-in is over (revoked, expired, or a rotated-away token came back: RFC
 * 6749 §5.2); an outage or another refusal leaves the kept sign-in as it was,
 * and saying "log in again" then would send people through the browser for
 * nothing.
 */
export function refreshFailure(error: unknown, issuer: string): string {
  const login = `run demarkus-broker login --issuer ${issuer}`;
  const unavailable = unavailableReason(error);
  if (unavailable !== undefined)
    return `the broker at ${issuer} is unavailable (${unavailable}); the sign-in is kept: try again shortly`;
  const code = (error as { error?: unknown } | null)?.error;
  const description = (error as { error_description?: unknown } | null)?.error_description;
  const detail = `${String(code)}${typeof description === 'string' ? ` (${description})` : ''}`;
  if (code === 'invalid_grant') return `the sign-in is no longer valid: ${detail}; ${login}`;
  if (typeof code === 'string')
    return `the broker refused to refresh the sign-in: ${detail}; the sign-in is kept: if this persists, ${login}`;
  return `refreshing the sign-in failed: ${error instanceof Error ? error.message : String(error)}; the sign-in is kept: try again, or ${login}`;
}
