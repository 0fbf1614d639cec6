import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { UsageError } from './usage-error.ts';
import { isLoopbackUrlHost } from '../transport/loopback.ts';
import { replaceFile } from '../files/durable-file.ts';
import { fetchFailureReason } from '../errors/fetch-failure.ts';
import { commandArgs } from './command-args.ts';

const help = `demarkus-broker login [--issuer URL] [--client-id ID]

Signs you in with the device flow (RFC 8628): prints a URL and a code, waits
while you confirm the code in a browser and sign in at your identity provider,
then keeps the tokens in your config directory (0600), for whoami and MCP clients.

  --issuer URL      the broker's public URL (default: the last one you signed in to,
                    env DEMARKUS_BROKER_ISSUER, or http://127.0.0.1:8080 for npm start)
  --client-id ID    OAuth client id (default demarkus-cli, the broker's built-in CLI client)`;

export const defaultCliClientId = 'demarkus-cli';
const localIssuer = 'http://127.0.0.1:8080';

export type CliOutput = { out: (line: string) => void };
const consoleOutput: CliOutput = { out: (line) => console.log(line) };

/** What `login` keeps per issuer. Tokens are secrets: the file is 0600 in a 0700 directory. */
export type StoredSignIn = {
  issuer: string;
  clientId: string;
  accessToken: string;
  refreshToken?: string;
  expiresAt: number;
  email?: string;
};
type CredentialsFile = { current?: string; signIns: Record<string, StoredSignIn> };

/** `$DEMARKUS_BROKER_CONFIG_DIR`, else `$XDG_CONFIG_HOME/demarkus-broker`, else `~/.config/demarkus-broker`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DEMARKUS_BROKER_CONFIG_DIR) return env.DEMARKUS_BROKER_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'demarkus-broker');
}

export const credentialsPath = (env?: NodeJS.ProcessEnv) => join(configDir(env), 'credentials.json');

export async function readCredentials(env?: NodeJS.ProcessEnv): Promise<CredentialsFile> {
  try {
    const parsed = JSON.parse(await readFile(credentialsPath(env), 'utf8')) as CredentialsFile;
    return typeof parsed.signIns === 'object' && parsed.signIns !== null ? parsed : { signIns: {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { signIns: {} };
    throw error;
  }
}

export async function saveSignIn(signIn: StoredSignIn, env?: NodeJS.ProcessEnv): Promise<string> {
  const file = await readCredentials(env);
  file.signIns[signIn.issuer] = signIn;
  file.current = signIn.issuer;
  return writeCredentials(file, env);
}

/** Removes one issuer's sign-in (logout); the last one left becomes current. */
export async function forgetSignIn(issuer: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const file = await readCredentials(env);
  delete file.signIns[issuer];
  if (file.current === issuer) {
    const remaining = Object.keys(file.signIns);
    if (remaining.length > 0) file.current = remaining[remaining.length - 1];
    else delete file.current;
  }
  return writeCredentials(file, env);
}

async function writeCredentials(file: CredentialsFile, env?: NodeJS.ProcessEnv): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = credentialsPath(env);
  await replaceFile(path, Buffer.from(`${JSON.stringify(file, null, 2)}\n`), 0o600);
  return path;
}

/** The issuer to talk to: the flag, the environment, the last sign-in, or the local stack. */
export async function resolveIssuer(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  // An empty variable counts as unset, as shells usually mean it.
  const issuer =
    flag ?? (env.DEMARKUS_BROKER_ISSUER || undefined) ?? (await readCredentials(env)).current ?? localIssuer;
  if (!URL.canParse(issuer)) throw new UsageError(`--issuer: ${JSON.stringify(issuer)} is not a URL`);
  return issuer.replace(/\/+$/, '');
}

/** The broker's AS metadata through openid-client; plain http is allowed for loopback development brokers only. */
export async function discoverBroker(issuer: string, clientId: string): Promise<oidc.Configuration> {
  const url = new URL(issuer);
  const loopback = isLoopbackUrlHost(url.hostname);
  if (url.protocol === 'http:' && !loopback)
    throw new UsageError('--issuer must use https (plain http only for a local broker)');
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
      throw new Error(`cannot reach the broker at ${issuer}: ${fetchFailureReason(error)}; ${next}`, { cause: error });
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
  const issuer = await resolveIssuer(values.issuer);
  const clientId = values['client-id'] ?? defaultCliClientId;
  const config = await discoverBroker(issuer, clientId);
  const grant = await oidc.initiateDeviceAuthorization(config, { scope: 'openid email mark.read mark.write' });
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
  const description = (error as { error_description?: unknown } | null)?.error_description;
  if (typeof code === 'string')
    return `the broker refused the sign-in: ${code}${typeof description === 'string' ? ` (${description})` : ''}; ${again}`;
  return `sign-in failed: ${error instanceof Error ? error.message : String(error)}`;
}
