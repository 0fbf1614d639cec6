/**
 * Entry point of the world chart's tokens bootstrap Job:
 *
 *   node /app/dist/broker/kubernetes/world-tokens-bootstrap-main.js \
 *     --world NAME --tokens-secret NAME [--values-secret NAME] \
 *     --label admin --paths /** --ops publish
 *
 * The namespace comes from POD_NAMESPACE (downward API); an operator-chosen
 * admin token from DEMARKUS_ADMIN_TOKEN. Prints one JSON line, never a token.
 */
import { parseArgs } from 'node:util';
import { kubernetesApis } from './kube-clients.ts';
import { bootstrapWorldTokens } from './world-tokens-bootstrap.ts';

export async function runWorldTokensBootstrap(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      world: { type: 'string' },
      'tokens-secret': { type: 'string' },
      'values-secret': { type: 'string' },
      label: { type: 'string', default: 'admin' },
      paths: { type: 'string', default: '/**' },
      ops: { type: 'string', default: 'publish' },
    },
  });
  const namespace = env.POD_NAMESPACE;
  if (!values.world || !values['tokens-secret'] || !namespace) {
    process.stderr.write('world-tokens-bootstrap: --world, --tokens-secret and POD_NAMESPACE are required\n');
    return 2;
  }
  const list = (text: string) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const result = await bootstrapWorldTokens({
    core: kubernetesApis().core,
    namespace,
    world: values.world,
    tokensSecret: values['tokens-secret'],
    valuesSecret: values['values-secret'] ?? null,
    label: values.label,
    paths: list(values.paths),
    operations: list(values.ops),
    ...(env.DEMARKUS_ADMIN_TOKEN ? { rawToken: env.DEMARKUS_ADMIN_TOKEN } : {}),
    labels: { 'app.kubernetes.io/managed-by': 'demarkus-world-bootstrap', 'demarkus.io/world': values.world },
  });
  process.stdout.write(
    `${JSON.stringify({
      msg: 'world tokens bootstrap',
      world: values.world,
      namespace,
      secret: values['tokens-secret'],
      result,
    })}\n`,
  );
  return 0;
}

if (import.meta.main) {
  process.exitCode = await runWorldTokensBootstrap(process.argv.slice(2), process.env).catch((error: unknown) => {
    process.stderr.write(`world-tokens-bootstrap: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  });
}
