import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { discoverBroker, type CliOutput } from './login-command.ts';
import type { StoredSignIn } from './credentials.ts';
import { chosenSignIn } from './signed-in.ts';
import { commandArgs } from './command-args.ts';

const help = `demarkus-broker whoami [--issuer URL] [--access-token]

Says who you are signed in as at the broker, refreshing the access token
when it is about to expire (the refresh token rotates on every use).

  --issuer URL      which sign-in to show (default: the last one)
  --access-token    print only a valid access token, e.g. for an MCP client's
                    Authorization header`;

export async function runWhoamiCommand(
  args: string[],
  io: CliOutput = { out: (line) => console.log(line) },
): Promise<number> {
  const parsed = commandArgs(args, { issuer: { type: 'string' }, 'access-token': { type: 'boolean' } }, help, {
    out: io.out,
  });
  if (parsed === null) return 0;
  const { values } = parsed;
  const { issuer, signIn } = await chosenSignIn(values.issuer);
  // On stderr, like every failure: `$(demarkus-broker whoami --access-token)` must not capture it as a token.
  if (signIn === undefined) throw new Error(`not signed in to ${issuer}; run demarkus-broker login --issuer ${issuer}`);
  const claims = await verifiedClaims(signIn);
  if (values['access-token']) {
    io.out(signIn.accessToken);
    return 0;
  }
  io.out(`Signed in to ${issuer} as ${String(claims.email)}`);
  if (Array.isArray(claims.groups) && claims.groups.length > 0) io.out(`  groups: ${claims.groups.join(', ')}`);
  if (typeof claims.hd === 'string') io.out(`  domain: ${claims.hd}`);
  io.out(`  access token valid until ${new Date((claims.exp ?? 0) * 1000).toISOString()} (for ${String(claims.aud)})`);
  return 0;
}

/** The access token's claims, checked against the broker's published keys (so whoami does not trust a stale file). */
async function verifiedClaims(signIn: StoredSignIn): Promise<JWTPayload> {
  const config = await discoverBroker(signIn.issuer, signIn.clientId);
  const jwksUri = config.serverMetadata().jwks_uri;
  if (jwksUri === undefined) throw new Error('the broker publishes no jwks_uri');
  const { payload } = await jwtVerify(signIn.accessToken, createRemoteJWKSet(new URL(jwksUri)), {
    issuer: signIn.issuer,
    algorithms: ['ES256'],
  });
  return payload;
}
