import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { generateSigningKeyPem } from '../broker/auth/signing-key.ts';
import { parseBrokerConfig, type BrokerConfig } from '../broker/config/index.ts';

export type DevWorldAddress = { name: string; address: string; tokensFile: string };

/** The development IdP the broker signs users in with (src/dev/idp.ts). */
export type DevIdpSettings = { issuer: string; clientId: string; clientSecret: string };

/**
 * The development broker's configuration, written to data/broker/config.yaml so
 * people can read it and reuse it (`demarkus-broker token --config ...`). The
 * signing key is kept across restarts so minted tokens stay valid.
 */
export async function devBrokerConfig(options: {
  dataDir: string;
  host: string;
  port: number;
  caFile: string;
  worlds: DevWorldAddress[];
  idp?: DevIdpSettings;
}): Promise<{ config: BrokerConfig; file: string }> {
  const dir = join(options.dataDir, 'broker');
  await mkdir(join(dir, 'state'), { recursive: true });
  const keyFile = join(dir, 'signing-key.pem');
  if (!existsSync(keyFile)) await writeFile(keyFile, generateSigningKeyPem(), { mode: 0o600 });
  const signingKey = await readFile(keyFile, 'utf8');
  const cookieKeyFile = join(dir, 'cookie-key');
  if (!existsSync(cookieKeyFile)) await writeFile(cookieKeyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  const cookieKey = (await readFile(cookieKeyFile, 'utf8')).trim();
  const management = `http://${options.host}:${options.port}`;
  const mcp = `http://${options.host}:${options.port + 1}`;
  const document = {
    server: {
      addr: `${options.host}:${options.port}`,
      publicURL: management,
      mcp: { addr: `${options.host}:${options.port + 1}`, publicURL: mcp },
      // The IdP takes port + 2 (src/dev/stack.ts); health and metrics the one after.
      management: { addr: `${options.host}:${options.port + 3}` },
      // Plain http on loopback: cookies without the Secure flag (development only).
      ...(options.idp ? { insecureCookies: true, cookieKey } : {}),
    },
    oidc: {
      brokerSigningKey: signingKey,
      ...(options.idp
        ? { issuer: options.idp.issuer, clientID: options.idp.clientId, clientSecret: options.idp.clientSecret }
        : {}),
    },
    // A local client can publish its metadata document on http://localhost (development only).
    ...(options.idp ? { oauth: { clientMetadataDocuments: { allowLoopback: true } } } : {}),
    storage: { backend: 'file', dir: join(dir, 'state') },
    worlds: options.worlds.map((w) => ({
      name: w.name,
      internalAddress: w.address,
      publicURL: `mark://${w.address}`,
      tokensFile: w.tokensFile,
      defaultToken: { paths: ['/**'] },
    })),
    worldDialer: { caFile: options.caFile },
    // One person's browser and CLI share 127.0.0.1: the per-IP sign-in budget is roomier than production's.
    rateLimit: {
      tokens: { perMinute: 600, burst: 120 },
      login: { perMinute: 600, burst: 100 },
      registration: { perMinute: 60, burst: 100 },
    },
  };
  const text = `# Development broker configuration written by \`npm start\`. Not for production.\n${stringify(document)}`;
  const file = join(dir, 'config.yaml');
  await writeFile(file, text, { mode: 0o600 });
  return { config: parseBrokerConfig(text), file };
}
