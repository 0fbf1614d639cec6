/**
 * A sign-in kept as `demarkus-broker login` keeps it: the credentials file in
 * the CLI's config folder (src/cli/credentials.ts), and the environment
 * that makes a spawned CLI use only that folder.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { generateSigningKeyPem, loadSigningKey } from '../../src/broker/auth/signing-key.ts';

export type KeptSignIn = {
  issuer: string;
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms; the default is an hour from now, 0 makes the access token due for a refresh. */
  expiresAt?: number;
};

/** Writes `dir`/credentials.json as login writes it, with this sign-in as the current one. */
export async function writeKeptSignIn(dir: string, signIn: KeptSignIn): Promise<void> {
  const { issuer, accessToken, refreshToken = 'RT', expiresAt = Date.now() + 3_600_000 } = signIn;
  const entry = { issuer, clientId: 'demarkus-cli', accessToken, refreshToken, expiresAt };
  await writeFile(join(dir, 'credentials.json'), JSON.stringify({ current: issuer, signIns: { [issuer]: entry } }), {
    mode: 0o600,
  });
}

/** The sign-in that `dir`/credentials.json keeps for `issuer`, or the current one. */
export async function readKeptSignIn(dir: string, issuer?: string): Promise<Required<KeptSignIn>> {
  const file = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8'));
  return file.signIns[issuer ?? file.current];
}

/** A spawned CLI's environment: the credentials in `dir`, and no broker URL, token or issuer from the test's own. */
export const keptSignInEnv = (dir: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  DEMARKUS_BROKER_CONFIG_DIR: dir,
  DEMARKUS_BROKER_URL: undefined,
  DEMARKUS_BROKER_TOKEN: undefined,
  DEMARKUS_BROKER_ISSUER: undefined,
  ...env,
});

const signingKey = loadSigningKey(generateSigningKeyPem());

/** An access token a broker at https://broker.corp.example issued for `audience`, valid for an hour. */
export function brokerTokenFor(audience: string): Promise<string> {
  return mintBrokerToken({
    key: signingKey,
    issuer: 'https://broker.corp.example',
    audience,
    email: 'paula@example.com',
    ttlSeconds: 3600,
  });
}
