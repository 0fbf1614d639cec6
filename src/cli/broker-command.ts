import { loadBrokerConfig } from '../broker/config/index.ts';
import { startBroker } from '../broker/broker.ts';
import { stopGracefully, waitForSignal } from './signals.ts';
import { givenConfigPath, productionConfigPath } from './config-path.ts';
import { jsonLogger, logOptions } from './json-logger.ts';
import { commandArgs } from './command-args.ts';

const help = `demarkus-broker broker [--config FILE]

Runs the broker: the MCP listener (server.mcp.addr), the issuer listener
(server.addr: sign-in, OAuth and discovery documents) and the management
listener (server.management.addr: /healthz, /readyz, /metrics). The
configuration reference is docs/configuration.md.

On SIGTERM or SIGINT it drains (docs/operations.md, "Upgrade"):
/readyz answers 503 at once, the listeners serve on for
server.shutdown.drainDelay, then requests in flight get up to
server.shutdown.timeout to finish. A second signal exits at once.

  --config FILE   YAML configuration (default /etc/demarkus-broker/config.yaml;
                  env DEMARKUS_BROKER_CONFIG; empty counts as unset)`;

export async function runBrokerCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(args, { config: { type: 'string' } }, help);
  if (parsed === null) return 0;
  const { values } = parsed;
  const config = await loadBrokerConfig(givenConfigPath(values.config) ?? productionConfigPath);
  const broker = await startBroker(config, { logger: logOptions('broker') });
  const log = jsonLogger('broker');
  const stopped = waitForSignal();
  log.info(
    {
      mcp: `${broker.mcp.host}:${broker.mcp.port}`,
      issuer: `${broker.issuer.host}:${broker.issuer.port}`,
      management: `${broker.management.host}:${broker.management.port}`,
      worlds: broker.gateway.list().map((w) => w.name),
    },
    'broker listening',
  );
  const { drainDelay, timeout } = config.server.shutdown;
  await stopGracefully(
    stopped,
    async (signal) => {
      log.info({ signal, drainDelayMs: drainDelay, timeoutMs: timeout }, 'shutting down: not ready, draining');
      await broker.close({ drainDelayMs: drainDelay, graceMs: timeout });
    },
    log,
  );
  return 0;
}
