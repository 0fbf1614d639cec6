import * as oidc from 'openid-client';
import { type CliOutput, discoverBroker } from './login-command.ts';
import { changeCredentials, resolveIssuer, withoutSignIn } from './credentials.ts';
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
  // Under the credentials lock: a refresh in another process must not rotate the token being revoked.
  const outcome = await changeCredentials(async (file, save) => {
    const signIn = file.signIns[issuer];
    if (signIn === undefined) return undefined;
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
    withoutSignIn(file, issuer);
    return { revoked, path: await save() };
  });
  if (outcome === undefined) io.out(`Not signed in to ${issuer}; nothing to do.`);
  else io.out(`Signed out of ${issuer}: ${outcome.revoked}; removed from ${outcome.path}.`);
  return 0;
}
