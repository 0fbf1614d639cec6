import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { generateSigningKeyPem } from '../broker/auth/signing-key.ts';
import { parseBrokerConfig, type BrokerConfig } from '../broker/config/index.ts';

export type DevWorldAddress = { name: string; address: string; tokensFile: string };

/**
 * The development broker's configuration, written to data/broker/config.yaml so
 * people can read it and reuse it (`demarkus-broker token --config ...`). The
 * signing key is kept across restarts so minted tokens stay valid.
 */
export async function devBrokerConfig(options: { dataDir: string; host: string; port: number; caFile: string; worlds: DevWorldAddress[] }): Promise<{ config: BrokerConfig; file: string }> {
  const dir = join(options.dataDir, 'broker');
  await mkdir(join(dir, 'state'), { recursive: true });
  const keyFile = join(dir, 'signing-key.pem');
  if (!existsSync(keyFile)) await writeFile(keyFile, generateSigningKeyPem(), { mode: 0o600 });
  const signingKey = await readFile(keyFile, 'utf8');
  const management = `http://${options.host}:${options.port}`;
  const mcp = `http://${options.host}:${options.port + 1}`;
  const document = {
    server: {
      addr: `${options.host}:${options.port}`,
      publicURL: management,
      mcp: { addr: `${options.host}:${options.port + 1}`, publicURL: mcp },
    },
    oidc: { brokerSigningKey: signingKey },
    storage: { backend: 'file', dir: join(dir, 'state') },
    worlds: options.worlds.map((w) => ({
      name: w.name,
      internalAddress: w.address,
      publicURL: `mark://${w.address}`,
      tokensFile: w.tokensFile,
      defaultToken: { paths: ['/**'] },
    })),
    worldDialer: { caFile: options.caFile },
    rateLimit: { tokens: { perMinute: 600, burst: 120 } },
  };
  const text = `# Development broker configuration written by \`npm start\`. Not for production.\n${stringify(document)}`;
  const file = join(dir, 'config.yaml');
  await writeFile(file, text, { mode: 0o600 });
  return { config: parseBrokerConfig(text), file };
}
