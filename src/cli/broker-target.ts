/**
 * The broker endpoint and bearer token of a command that calls a broker tool
 * over MCP (`search`, `doctor`): a token given explicitly goes where `--url`
 * says (npm start's broker by default); without one, the access token `login`
 * kept goes only to the broker it was issued for (src/cli/broker-destination.ts;
 * docs/decisions.md 2026-12-06).
 */
import { devBrokerMcpUrl, explicitTokenUrl, requestedUrl, signedInUrl } from './broker-destination.ts';
import { chosenSignIn } from './signed-in.ts';
import { UsageError } from './usage-error.ts';

/**
 * `failureNote`: set when the URL is npm start's broker because none was
 * given, so a failed call says so rather than leaving a person who meant
 * another broker to guess (BrokerToolClient adds it to every failure).
 */
export type BrokerTarget = { url: URL; token: string; failureNote?: string };

const defaultUrlNote = `no --url or DEMARKUS_BROKER_URL was given, so --token went to npm start's broker (${devBrokerMcpUrl}); pass --url URL for another broker`;

/** The target for `--token` and `--url` as given (each may also come from its environment variable). */
export async function brokerTarget(
  flags: { token?: string | undefined; url?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): Promise<BrokerTarget> {
  // An empty variable counts as unset, as shells usually mean it.
  const explicitToken = flags.token ?? (env.DEMARKUS_BROKER_TOKEN || undefined);
  const requested = requestedUrl(flags.url, env);
  if (explicitToken !== undefined)
    return {
      url: explicitTokenUrl(requested),
      token: explicitToken,
      ...(requested === undefined ? { failureNote: defaultUrlNote } : {}),
    };
  const { signIn } = await chosenSignIn(undefined, env);
  if (signIn === undefined)
    throw new UsageError(
      'not signed in: run demarkus-broker login (the token it keeps is used), or pass --token (env DEMARKUS_BROKER_TOKEN)',
    );
  return { url: signedInUrl(signIn, requested), token: signIn.accessToken };
}
