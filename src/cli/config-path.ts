import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from './usage-error.ts';

/** Where a production broker's configuration lives (the `broker` command's default; the chart mounts it). */
export const productionConfigPath = '/etc/demarkus-broker/config.yaml';
/** Where `npm start` (the `dev` command) writes the local stack's broker configuration. */
export const devConfigPath = 'data/broker/config.yaml';

/**
 * The configuration file the user named: `--config`, else `DEMARKUS_BROKER_CONFIG`;
 * undefined when neither names one. An empty value counts as unset, as for every
 * variable the config reads (src/broker/config/env.ts): a cleared variable must
 * not become a path. Every command that takes `--config` starts here.
 */
export function givenConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const value of [flag, env.DEMARKUS_BROKER_CONFIG]) if (value !== undefined && value !== '') return value;
  return undefined;
}

/**
 * The configuration file of the helper commands (`token`, `crawl`): the given
 * one (givenConfigPath), then the local stack's file when `npm start`
 * made one in this directory, then the production path. With no flag and no
 * file at either default, a usage error says what was tried and what to pass.
 */
export function helperConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const given = givenConfigPath(flag, env);
  if (given !== undefined) return given;
  const local = resolve(devConfigPath);
  if (existsSync(local)) return local;
  if (existsSync(productionConfigPath)) return productionConfigPath;
  throw new UsageError(
    `no broker configuration found: tried ./${devConfigPath} (written by npm start) and ${productionConfigPath}; pass --config FILE or set DEMARKUS_BROKER_CONFIG`,
  );
}
