import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { startDevStack } from '../dev/stack.ts';
import { jsonLogger } from './json-logger.ts';
import { waitForSignal } from './world-command.ts';
import { UsageError } from './usage-error.ts';

const help = `demarkus-broker dev [--data DIR] [--host HOST] [--port PORT]

Runs the local stack: worlds root, team-a and team-b on consecutive ports,
seeded on first run. Development only: self-signed certificate, one shared
publisher token.

  --data DIR     state directory (default ./data)
  --host HOST    listen address (default 127.0.0.1)
  --port PORT    first world's port (default 6401; env DEMARKUS_DEV_PORT)`;

export async function runDevCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { data: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  const basePort = Number(values.port ?? process.env['DEMARKUS_DEV_PORT'] ?? 6401);
  if (!Number.isInteger(basePort) || basePort < 1 || basePort > 65533) throw new UsageError(`invalid --port "${values.port}"`);
  const dataDir = resolve(values.data ?? 'data');
  const stack = await startDevStack({ dataDir, host: values.host ?? '127.0.0.1', basePort, log: jsonLogger('dev') });
  const stopped = waitForSignal();
  printWelcome(stack, dataDir);
  await stopped;
  await stack.close();
  return 0;
}

function printWelcome(stack: Awaited<ReturnType<typeof startDevStack>>, dataDir: string): void {
  const mark = 'npx demarkus-broker mark';
  const ca = `--ca ${stack.certFile}`;
  const first = stack.worlds[0]!;
  const lines = [
    '',
    'demarkus local stack (development only)',
    '',
    ...stack.worlds.map((w) => `  world ${w.name.padEnd(7)} mark://${w.address}  ${w.seeded > 0 ? `(seeded ${w.seeded} documents)` : ''}`),
    '',
    `  data:            ${dataDir}`,
    `  TLS certificate: ${stack.certFile} (self-signed; pass it with --ca, or use --insecure)`,
    `  publish token:   ${dataDir}/dev-token`,
    '',
    'Try:',
    `  ${mark} fetch   mark://${first.address}/index.md ${ca}`,
    `  ${mark} list    mark://${first.address}/adr ${ca}`,
    `  ${mark} lookup  mark://${stack.worlds[1]!.address}/ --query auth ${ca}`,
    `  ${mark} lookup  mark://${stack.worlds[2]!.address}/ --query "every query term" --match body ${ca}`,
    `  ${mark} publish mark://${first.address}/notes/hello.md --token "$(cat ${dataDir}/dev-token)" --body "# Hello" ${ca}`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ];
  console.log(lines.join('\n'));
}
