import type { MarkClient } from '../transport/mark-client.ts';
import { identityUrl, type MarkUrl } from '../protocol/mark-url.ts';
import {
  callBrokerTool,
  fitQuery,
  hitOf,
  parseSearchText,
  searchWorlds,
  type SearchText,
} from '../broker/search/index.ts';
import { goTrimSpace } from '../protocol/go-strings.ts';
import { lookupMinQueryRunes } from '../protocol/limits.ts';
import { isLookupQueryTooShort } from '../protocol/lookup-query.ts';
import { markUrlArgument, UsageError } from './usage-error.ts';
import { devBrokerMcpUrl } from './broker-destination.ts';
import { brokerTarget } from './broker-target.ts';
import { commandArgs } from './command-args.ts';
import { directWorldAuthority, directWorldClient, directWorldOptions, type DirectWorldFlags } from './direct-world.ts';
import { numberFlag } from './number-flag.ts';

const help = `demarkus-broker search <query...> [options]

Full-text search: prints the best-matching documents, best first, one per
document with its best section. Not every word has to appear.

Through the broker (default; the mark_search tool over MCP):
  --token TOKEN      bearer token (env DEMARKUS_BROKER_TOKEN); default the one demarkus-broker login keeps
  --url URL          the broker's MCP endpoint (env DEMARKUS_BROKER_URL): https, or http on this computer.
                     With the kept sign-in, default and only choice the broker it is for; with
                     --token, default ${devBrokerMcpUrl} (npm start), and a failed call says so
  --world W          search only this world
Against one world (LOOKUP match: body with our ranking extension):
  --direct mark://host[:port][/scope]
  --token TOKEN      sent as the world's "auth" (env DEMARKUS_TOKEN)
  --ca FILE | --insecure | --server-name NAME
Both:
  --scope PATH       path searched (default /)
  --filter F         key=value conditions, e.g. tag=runbook
  --limit N          documents to show (default 10, at most 100)
  --json             print exactly [{"uri","title","score","snippet"}] on stdout; notes go to stderr

A search that finds nothing prints the nearest titles and how to browse.
Exit status: 0 when an answer came (even an empty one), 1 when none did, 2 for usage.`;

type Options = { query: string; scope: string; filter?: string; limit: number; json: boolean };

export async function runSearchCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      url: { type: 'string' },
      token: { type: 'string' },
      world: { type: 'string' },
      direct: { type: 'string' },
      ...directWorldOptions,
      scope: { type: 'string' },
      filter: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
    help,
    { positionals: true },
  );
  if (parsed === null) return 0;
  const { values, positionals } = parsed;
  // Trimmed and measured as every world will (src/protocol/lookup-query.ts); `*` matches no text, as mark_search says.
  const query = goTrimSpace(positionals.join(' '));
  if (query === '*' || isLookupQueryTooShort(query))
    throw new UsageError(`expected a query of at least ${lookupMinQueryRunes} characters`);
  const limit = numberFlag('--limit', values.limit, { min: 1, max: 100, unit: 'documents' }, 10);
  if (values.direct !== undefined && values.world !== undefined)
    throw new UsageError('--world applies to the broker; --direct already names one world');
  const base = { query, limit, json: values.json ?? false, ...(values.filter ? { filter: values.filter } : {}) };
  if (values.direct !== undefined) {
    const url = markUrlArgument(values.direct, '--direct');
    const options = { ...base, scope: values.scope ?? url.path };
    const answer = await searchDirect(url, options, {
      ...values,
      token: values.token ?? process.env.DEMARKUS_TOKEN,
    });
    return report(answer, options, `demarkus-broker mark list ${identityUrl({ ...url, path: '/' })}`);
  }
  const options = { ...base, scope: values.scope ?? '/' };
  const target = await brokerTarget(values);
  const toolArgs: Record<string, unknown> = {
    query,
    limit,
    scope: options.scope,
    ...(values.world ? { world: values.world } : {}),
    ...(values.filter ? { filter: values.filter } : {}),
  };
  const result = await callBrokerTool(target.url.href, target.token, 'mark_search', toolArgs, {
    failureNote: target.failureNote,
  });
  if (result.isError) throw new Error(result.text);
  return report(
    parseSearchText(result.text),
    options,
    "mark_lookup_all with query '*' (any MCP client), or demarkus-broker mark list mark://<world address>/",
  );
}

type DirectFlags = DirectWorldFlags & { token?: string | undefined };

/** One world, no broker: the same two-phase search the broker runs, over a single world. */
async function searchDirect(url: MarkUrl, options: Options, flags: DirectFlags): Promise<SearchText> {
  const fitted = fitQuery(options.query);
  if ('refusal' in fitted) throw new UsageError(fitted.refusal);
  const client = await directWorldClient(flags);
  const authority = directWorldAuthority(url, flags);
  try {
    const lookup = (_world: string, call: Parameters<MarkClient['call']>[1]) =>
      client.call(authority, {
        ...call,
        metadata: { ...call.metadata, ...(flags.token ? { auth: flags.token } : {}) },
      });
    const outcome = await searchWorlds(lookup, {
      worlds: ['direct'],
      query: fitted.query,
      scope: options.scope,
      filter: options.filter,
      limit: options.limit,
      perWorldLimit: options.limit * 5,
      terms: 'any',
      nearest: 3,
      onePerDocument: true,
    });
    const failure = outcome.failures[0];
    if (failure !== undefined) throw failure.error;
    const address = (path: string, anchor: string) => identityUrl({ ...url, path }) + (anchor ? `#${anchor}` : '');
    return {
      status: 'ok',
      worlds: 1,
      failed: [],
      ranking: outcome.ranking,
      hits: outcome.rows.map((row) => hitOf(row, (r) => address(r.path, r.anchor))),
      nearest: outcome.nearest.map((n) => ({ url: address(n.path, ''), title: n.title })),
      notes: [
        ...(outcome.strictWorlds.length > 0
          ? ['this world requires every query word in a row (no relaxed ranking)']
          : []),
        ...outcome.languageHints,
      ],
    };
  } finally {
    await client.close();
  }
}

/** Prints the answer: JSON on stdout with everything else on stderr, or a readable list. */
function report(answer: SearchText, options: Options, browse: string): number {
  const notes = [
    ...answer.failed.map((f) => `world ${f.world} failed: ${f.message}`),
    ...answer.notes.map((n) => `note: ${n}`),
  ];
  if (options.json) {
    process.stdout.write(
      JSON.stringify(answer.hits.map((h) => ({ uri: h.url, title: h.title, score: h.score, snippet: h.snippet }))) +
        '\n',
    );
    const help = answer.hits.length === 0 ? zeroResultLines(answer, options.query, browse) : [];
    for (const line of [...help, ...notes]) process.stderr.write(`${line}\n`);
    return 0;
  }
  const out: string[] = [];
  answer.hits.forEach((hit, i) => {
    out.push(
      `${String(i + 1).padStart(2)}. ${hit.title}${hit.score === null ? '' : `  ·  score ${hit.score.toFixed(2)}`}`,
      `    ${hit.url}`,
    );
    if (hit.snippet !== '') out.push(`    ${hit.snippet}`);
  });
  if (answer.hits.length === 0) out.push(...zeroResultLines(answer, options.query, browse));
  process.stdout.write(out.map((line) => `${line}\n`).join(''));
  for (const line of notes) process.stderr.write(`${line}\n`);
  return 0;
}

/** A zero-result answer never dead-ends: the nearest titles, then where to browse. */
function zeroResultLines(answer: SearchText, query: string, browse: string): string[] {
  const lines = [`no document matches ${JSON.stringify(query)}`];
  if (answer.nearest.length > 0) lines.push('nearest titles:', ...answer.nearest.map((n) => `  ${n.title}  ${n.url}`));
  lines.push(`browse all: ${browse}`);
  return lines;
}
