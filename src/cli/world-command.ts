import { resolve } from 'node:path';
import { defaultPort } from '../protocol/limits.ts';
import { readFile } from 'node:fs/promises';
import { seedDocumentOnce } from '../world/seed-document.ts';
import type { World } from '../world/world.ts';
import { loadTlsFiles, TlsConfigError, type TlsKeyPair } from '../transport/index.ts';
import { startWorldServer } from '../world/world-server.ts';

/** Where a world describes itself (docs/knowledge.md "World descriptors"). */
const worldMdPath = '/world.md';
import { jsonLogger } from './json-logger.ts';
import { parseHostPort, UsageError } from './usage-error.ts';
import { commandArgs } from './command-args.ts';
import { flagOrEnv, numberFlag } from './number-flag.ts';
import { stopGracefully, waitForSignal } from './signals.ts';

const help = `demarkus-broker world --root DIR [options]

Runs a Mark Protocol world server over QUIC (ALPN "mark").

  --root DIR            content directory (env DEMARKUS_ROOT); created if missing
  --tokens FILE         tokens.toml (env DEMARKUS_TOKENS); without it writes are refused
  --listen HOST:PORT    listen address (default [::]:${defaultPort}; env DEMARKUS_PORT sets the port)
  --tls-cert FILE       PEM certificate chain (with --tls-key)
  --tls-key FILE        PEM private key; without both, a self-signed dev certificate is made
  --name NAME           world name shown in the generated agent manifest
  --read-only           refuse every write
  --rate-limit N        requests per second per IP (default 50; 0 = off; env DEMARKUS_RATE_LIMIT)
  --rate-burst N        burst per IP (default 100; env DEMARKUS_RATE_BURST)
  --seed-world-md FILE  publish FILE as /world.md on first start (only if the world never had one)
  --shutdown-timeout S  on SIGTERM/SIGINT, seconds the requests in flight may take to finish before
                        the rest (WATCH streams too) are cut (default 10; env DEMARKUS_SHUTDOWN_TIMEOUT);
                        a second signal exits at once`;

export async function runWorldCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      root: { type: 'string' },
      tokens: { type: 'string' },
      listen: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      name: { type: 'string' },
      'read-only': { type: 'boolean' },
      'rate-limit': { type: 'string' },
      'rate-burst': { type: 'string' },
      'seed-world-md': { type: 'string' },
      'shutdown-timeout': { type: 'string' },
    },
    help,
  );
  if (parsed === null) return 0;
  const { values } = parsed;
  const root = values.root ?? process.env.DEMARKUS_ROOT;
  if (root === undefined || root === '') throw new UsageError('--root is required (or set DEMARKUS_ROOT)');
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined))
    throw new UsageError('--tls-cert and --tls-key go together');
  const portFromEnv = numberFlag(
    'DEMARKUS_PORT',
    process.env.DEMARKUS_PORT || undefined,
    { min: 0, max: 65535 },
    defaultPort,
  );
  const listen = parseHostPort('--listen', values.listen ?? `[::]:${portFromEnv}`, portFromEnv);
  // Under the world chart's terminationGracePeriodSeconds (30), with room for the rest of the stop.
  const shutdownSeconds = numberFlag(
    ...flagOrEnv('--shutdown-timeout', values['shutdown-timeout'], 'DEMARKUS_SHUTDOWN_TIMEOUT'),
    { min: 0, fraction: true, unit: 'seconds' },
    10,
  );
  const tls = await tlsFiles(values['tls-cert'], values['tls-key']);
  const log = jsonLogger('world');
  const server = await startWorldServer({
    root: resolve(root),
    tokensFile: values.tokens ?? process.env.DEMARKUS_TOKENS ?? undefined,
    name: values.name,
    readOnly: values['read-only'] ?? false,
    listen,
    tls,
    rateLimit: rateLimitOptions(values['rate-limit'], values['rate-burst']),
    log,
  });
  if (values['seed-world-md'] !== undefined) await seedWorldMd(server.world, values['seed-world-md'], log);
  // Handlers first: whoever reads the "listening" line may signal at once.
  const stopped = waitForSignal();
  if (server.devCertificate) {
    log.warn(
      { sans: server.devCertificate.names },
      'no --tls-cert/--tls-key given: serving a self-signed development certificate (clients need --insecure or this certificate as CA)',
    );
  }
  log.info(
    {
      listen: `${server.host}:${server.port}`,
      root: resolve(root),
      tokens: Boolean(values.tokens ?? process.env.DEMARKUS_TOKENS),
      documents: server.world.context.catalog.size,
    },
    'world listening',
  );
  await stopGracefully(
    stopped,
    async (signal) => {
      log.info({ signal, timeoutSeconds: shutdownSeconds }, 'shutting down: finishing the requests in flight');
      await server.close({ graceMs: shutdownSeconds * 1000 });
    },
    log,
  );
  return 0;
}

/** The PEM files --tls-cert and --tls-key name, checked to match; a problem is blamed on its flag. Neither: a dev certificate. */
async function tlsFiles(certFile: string | undefined, keyFile: string | undefined): Promise<TlsKeyPair | 'dev'> {
  if (certFile === undefined || keyFile === undefined) return 'dev';
  try {
    return await loadTlsFiles({ certFile, keyFile });
  } catch (error) {
    if (error instanceof TlsConfigError)
      throw new UsageError(`${error.part === 'certificate' ? '--tls-cert' : '--tls-key'}: ${error.message}`);
    throw error;
  }
}

async function seedWorldMd(world: World, file: string, log: ReturnType<typeof jsonLogger>): Promise<void> {
  let body: string;
  try {
    body = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--seed-world-md: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  const written = await seedDocumentOnce(world, worldMdPath, body, {});
  log.info({ path: worldMdPath, written }, written ? 'seeded /world.md' : '/world.md exists: seed left unused');
}

/** Requests a second per client IP (0: no limit) and the burst, which must hold one request when there is a limit. */
function rateLimitOptions(rate: string | undefined, burst: string | undefined): { perSecond: number; burst: number } {
  const perSecond = numberFlag(
    ...flagOrEnv('--rate-limit', rate, 'DEMARKUS_RATE_LIMIT'),
    { min: 0, fraction: true, unit: 'requests a second' },
    50,
  );
  const burstName = flagOrEnv('--rate-burst', burst, 'DEMARKUS_RATE_BURST');
  return { perSecond, burst: numberFlag(...burstName, { min: perSecond > 0 ? 1 : 0, unit: 'requests' }, 100) };
}
