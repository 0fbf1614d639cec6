import { loadBrokerConfig } from '../broker/config/index.ts';
import { openWorldGateway } from '../broker/worlds/index.ts';
import { clusterServices } from '../broker/cluster.ts';
import { crawlerIdentity, runFederationCrawl, summaryRecord, summaryText } from '../broker/graph/index.ts';
import { devConfigPath, helperConfigPath, productionConfigPath } from './config-path.ts';
import { commandArgs } from './command-args.ts';
import { numberFlag } from './number-flag.ts';
import { UsageError } from './usage-error.ts';

const help = `demarkus-broker crawl [--config FILE] [--hub WORLD] [--retention N] [--as EMAIL] [--json]

Federation crawl, once: walks every configured world, then publishes the link
graph (/graph.md) and each world's content-hash index (/index/<address>.md) to
the hub world, so a cold broker answers backlinks at once. Incremental: what
did not change since the last run (state kept on the hub) is not fetched again.
Writes go through the broker's write token for the hub; if the hub has a writer
allowlist, allow the crawl identity (default ${crawlerIdentity.email}).

  --config FILE    broker configuration (env DEMARKUS_BROKER_CONFIG; default ./${devConfigPath}
                   when npm start wrote one here, else ${productionConfigPath})
  --hub WORLD      the hub world; must equal the config's hub (default: the config's
                   hub, root unless set), the world every broker seeds its graph from
  --retention N    versions the hub keeps of each output (default 20; 0 keeps all)
  --as EMAIL       identity recorded as the writer (agent)
  --json           print the summary as JSON

Exit status: 0 when every output is current, 1 when something could not be published.`;

export async function runCrawlCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      config: { type: 'string' },
      hub: { type: 'string' },
      retention: { type: 'string' },
      as: { type: 'string' },
      json: { type: 'boolean' },
    },
    help,
  );
  if (parsed === null) return 0;
  const { values } = parsed;
  // The bound of mark_graph_publish's retention (src/broker/mcp/tools/graph-publish.ts).
  const retention = numberFlag('--retention', values.retention, { min: 0, max: 1_000_000, unit: 'versions' }, 20);
  const config = await loadBrokerConfig(helperConfigPath(values.config));
  // The broker seeds from the config's hub only: a crawl published anywhere else would never be read.
  if (values.hub !== undefined && values.hub !== config.hub)
    throw new UsageError(
      `--hub ${values.hub} differs from the broker config's hub (${config.hub}), the world brokers seed their graph and read the publishing standard from, so they would never read this crawl; set hub: ${values.hub} in the config (chart value crawl.hub) or leave --hub out`,
    );
  const cluster = clusterServices(config);
  const gateway = await openWorldGateway(config, cluster.writeTokens ? { writeTokens: cluster.writeTokens } : {});
  try {
    const identity = values.as
      ? { ...crawlerIdentity, subject: values.as, email: values.as.toLowerCase() }
      : crawlerIdentity;
    const summary = await runFederationCrawl({
      gateway,
      hub: config.hub,
      now: () => new Date(),
      retention,
      identity,
    });
    process.stdout.write(values.json ? `${JSON.stringify(summaryRecord(summary), null, 2)}\n` : summaryText(summary));
    const failed = summary.published.some(
      (p) => p.outcome === 'failed' || p.outcome === 'too-large' || p.outcome === 'withheld',
    );
    return failed ? 1 : 0;
  } finally {
    await gateway.close();
  }
}
