import * as oidc from 'openid-client';
import {
  type CliOutput,
  credentialsPath,
  discoverBroker,
  forgetSignIn,
  readCredentials,
  resolveIssuer,
} from './login-command.ts';
import { commandArgs } from './command-args.ts';

const help = `demarkus-broker logout [--issuer URL]

Signs you out: revokes the refresh token login kept (RFC 7009, so it and every
token rotated from it stop working at the broker) and removes the sign-in from
your credentials file. The access token already issued lives until it expires
(minutes).

  --issuer URL      which sign-in to end (default: the last one)`;

export async function runLogoutCommand(
  args: string[],
  io: CliOutput = { out: (line) => console.log(line) },
): Promise<number> {
  const parsed = commandArgs(args, { issuer: { type: 'string' } }, help, { out: io.out });
  if (parsed === null) return 0;
  const { values } = parsed;
  const issuer = await resolveIssuer(values.issuer);
  const signIn = (await readCredentials()).signIns[issuer];
  if (signIn === undefined) {
    io.out(`Not signed in to ${issuer}; nothing to do.`);
    return 0;
  }
  let revoked = 'no refresh token was kept';
  if (signIn.refreshToken !== undefined) {
    try {
      const config = await discoverBroker(issuer, signIn.clientId);
      await oidc.tokenRevocation(config, signIn.refreshToken, { token_type_hint: 'refresh_token' });
      revoked = 'the refresh token is revoked at the broker';
    } catch (error) {
      // The local sign-in is removed anyway: keeping it would not make the broker forget it either.
      revoked = `the broker could not be told (${error instanceof Error ? error.message : String(error)}); the refresh token stays valid there until it expires`;
    }
  }
  await forgetSignIn(issuer);
  io.out(`Signed out of ${issuer}: ${revoked}; removed from ${credentialsPath()}.`);
  return 0;
}
