import { loadBrokerConfig } from '../broker/config/index.ts';
import { parseGoDuration } from '../broker/config/index.ts';
import { mintBrokerToken } from '../broker/auth/mint-broker-token.ts';
import { tokenTrust } from '../broker/trust.ts';
import { devConfigPath, helperConfigPath, productionConfigPath } from './config-path.ts';
import { UsageError } from './usage-error.ts';
import { commandArgs } from './command-args.ts';

const help = `demarkus-broker token --email EMAIL [--config FILE] [--ttl DURATION] [--groups G1,G2]

Mints a broker access token for EMAIL with the configured signing key and
prints it. For development and tests: real users sign in (demarkus-broker login).

  --config FILE    broker configuration (env DEMARKUS_BROKER_CONFIG; default ./${devConfigPath}
                   when npm start wrote one here, else ${productionConfigPath})
  --ttl DURATION   lifetime, Go syntax (default server.idTokenTTL, e.g. 15m)
  --groups LIST    comma-separated groups claim`;

export async function runTokenCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      email: { type: 'string' },
      config: { type: 'string' },
      ttl: { type: 'string' },
      groups: { type: 'string' },
    },
    help,
  );
  if (parsed === null) return 0;
  const { values } = parsed;
  const email = values.email?.trim() ?? '';
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError('--email is required and must look like name@domain');
  const config = await loadBrokerConfig(helperConfigPath(values.config));
  let ttlMs = config.server.idTokenTTL;
  if (values.ttl !== undefined) {
    try {
      ttlMs = parseGoDuration(values.ttl);
    } catch (error) {
      throw new UsageError(`--ttl: ${(error as Error).message}`);
    }
  }
  const trust = tokenTrust(config);
  const groups = (values.groups ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
  const token = await mintBrokerToken({
    key: trust.key,
    issuer: trust.issuer,
    audience: trust.resource,
    email,
    groups,
    ttlSeconds: Math.max(1, Math.round(ttlMs / 1000)),
  });
  process.stdout.write(`${token}\n`);
  return 0;
}
