import { BrokerToolClient } from '../broker/search/index.ts';
import { commandArgs } from './command-args.ts';
import { numberFlag } from './number-flag.ts';
import { devBrokerMcpUrl } from './broker-destination.ts';
import { brokerTarget } from './broker-target.ts';

const help = `demarkus-broker doctor [options]

The knowledge doctor for people: asks the broker's mark_doctor tool what needs
care across the worlds you may read (exact and near duplicates, policy breaks,
untagged documents, broken mark:// links, orphans) and prints the report.

  --token TOKEN      bearer token (env DEMARKUS_BROKER_TOKEN), e.g. from "demarkus-broker token";
                     default the one demarkus-broker login keeps
  --url URL          the broker's MCP endpoint (env DEMARKUS_BROKER_URL): https, or http on this computer.
                     With the kept sign-in, default and only choice the broker it is for; with
                     --token, default ${devBrokerMcpUrl} (npm start), and a failed call says so
  --worlds W1,W2     examine only these worlds
  --kinds K1,K2      report only these kinds (exact-duplicate, near-duplicate, policy, untagged, broken-link, orphan)
  --similarity S     near-duplicate threshold, 0.5 to 1 (default 0.8)
  --all              follow next-cursor and print every page

Exit status: 0 when the report has no findings, 1 when it has some or could not be made, 2 for usage.`;

export async function runDoctorCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      url: { type: 'string' },
      token: { type: 'string' },
      worlds: { type: 'string' },
      kinds: { type: 'string' },
      similarity: { type: 'string' },
      all: { type: 'boolean' },
    },
    help,
  );
  if (parsed === null) return 0;
  const { values } = parsed;
  const similarity = numberFlag('--similarity', values.similarity, { min: 0.5, max: 1, fraction: true });
  const target = await brokerTarget(values);
  const toolArgs: Record<string, unknown> = {
    limit: 500,
    ...(values.worlds ? { worlds: values.worlds } : {}),
    ...(values.kinds ? { kinds: values.kinds } : {}),
    ...(similarity === undefined ? {} : { similarity }),
  };
  let findings = 0;
  const broker = new BrokerToolClient(target.url.href, target.token, { failureNote: target.failureNote });
  try {
    for (let cursor: string | undefined; ; ) {
      const result = await broker.call('mark_doctor', { ...toolArgs, ...(cursor ? { cursor } : {}) });
      if (result.isError) throw new Error(result.text);
      process.stdout.write(result.text);
      findings = Number(/^findings: (\d+)$/m.exec(result.text)?.[1] ?? 0);
      cursor = /^next-cursor: (\S+)$/m.exec(result.text)?.[1];
      if (!values.all || cursor === undefined) {
        if (cursor !== undefined) process.stderr.write(`more findings: run again with --all to print every page\n`);
        break;
      }
      process.stdout.write('\n');
    }
  } finally {
    await broker.close();
  }
  return findings === 0 ? 0 : 1;
}
