import { loadBrokerConfig } from '../broker/config/index.ts';
import { formatGoDuration, parseGoDuration } from '../broker/config/index.ts';
import { mintBrokerToken } from '../broker/auth/mint-broker-token.ts';
import { tokenTrust } from '../broker/trust.ts';
import { devConfigPath, helperConfigPath, productionConfigPath } from './config-path.ts';
import { UsageError } from './usage-error.ts';
import { commandArgs } from './command-args.ts';

const help = `demarkus-broker token --email EMAIL [--config FILE] [--ttl DURATION [--allow-long-ttl]] [--groups G1,G2]

Mints a broker access token for EMAIL with the configured signing key and
prints it. For development and tests: real users sign in (demarkus-broker login).

  --config FILE    broker configuration (env DEMARKUS_BROKER_CONFIG; default ./${devConfigPath}
                   when npm start wrote one here, else ${productionConfigPath})
  --ttl DURATION   lifetime, Go syntax (default server.idTokenTTL, e.g. 15m): at least 1s,
                   at most 24h
  --allow-long-ttl allow a --ttl up to server.refreshTokenTTL (a bearer token lives until then)
  --groups LIST    comma-separated groups claim`;

export async function runTokenCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      email: { type: 'string' },
      config: { type: 'string' },
      ttl: { type: 'string' },
      'allow-long-ttl': { type: 'boolean' },
      groups: { type: 'string' },
    },
    help,
  );
  if (parsed === null) return 0;
  const { values } = parsed;
  const email = values.email?.trim() ?? '';
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError('--email is required and must look like name@domain');
  const config = await loadBrokerConfig(helperConfigPath(values.config));
  const ttlMs = tokenLifetimeMs(values.ttl, values['allow-long-ttl'] ?? false, config.server);
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

/** Longest `--ttl` without `--allow-long-ttl` (docs/decisions.md, "token --ttl is capped at 24 h"). */
export const maxTokenTtlMs = 24 * 60 * 60 * 1000;

/**
 * The lifetime `--ttl` asks for, in milliseconds, or the configured idTokenTTL
 * when absent. A minted token cannot be revoked, so 0, negative and sub-second
 * lifetimes are refused as mistakes, and so is one over 24 h unless
 * `--allow-long-ttl` says it is meant; even then no longer than a refresh token lives.
 */
export function tokenLifetimeMs(
  ttl: string | undefined,
  allowLong: boolean,
  server: { idTokenTTL: number; refreshTokenTTL: number },
): number {
  if (ttl === undefined) {
    if (allowLong) throw new UsageError('--allow-long-ttl goes with --ttl');
    return server.idTokenTTL;
  }
  let ms: number;
  try {
    ms = parseGoDuration(ttl);
  } catch (error) {
    throw new UsageError(`--ttl: ${(error as Error).message}`);
  }
  if (ms < 1000) throw new UsageError(`--ttl must be at least 1s, got ${JSON.stringify(ttl)}`);
  const cap = allowLong ? server.refreshTokenTTL : maxTokenTtlMs;
  if (ms > cap) {
    throw new UsageError(
      allowLong
        ? `--ttl must be at most server.refreshTokenTTL (${formatGoDuration(cap)}), got ${JSON.stringify(ttl)}`
        : `--ttl must be at most 24h, got ${JSON.stringify(ttl)}; pass --allow-long-ttl for up to server.refreshTokenTTL (${formatGoDuration(server.refreshTokenTTL)})`,
    );
  }
  return ms;
}
