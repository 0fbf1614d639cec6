import { readFile } from 'node:fs/promises';
import { bareHost, type MarkUrl } from '../protocol/mark-url.ts';
import { defaultPort } from '../protocol/limits.ts';
import { MarkTransportError } from '../transport/errors.ts';
import { findSection } from '../markdown/index.ts';
import { encodeResponse, type MarkResponse } from '../protocol/response.ts';
import { Status } from '../protocol/status.ts';
import type { Verb } from '../protocol/verbs.ts';
import { markUrlArgument, UsageError } from './usage-error.ts';
import { commandArgs } from './command-args.ts';
import { directWorldAuthority, directWorldClient, directWorldOptions } from './direct-world.ts';
import { maxTimeoutMs, numberFlag } from './number-flag.ts';

const help = `demarkus-broker mark <verb> mark://host[:port]/path [options]

Sends one Mark Protocol request and prints the answer (status and metadata, a
blank line, then the body). Verbs: fetch list versions lookup publish append archive.

Connection:
  --ca FILE               trust this PEM certificate (bundle) for the server
  --insecure              do not verify the server certificate (development only)
  --server-name NAME      TLS server name, when it differs from the host
  --timeout MS            per-request timeout in milliseconds, a whole number >= 1 (default 10000)
Auth and metadata:
  --token TOKEN           sent as "auth" (env DEMARKUS_TOKEN)
  --meta KEY=VALUE        extra metadata, repeatable
Per verb:
  fetch     --if-none-match ETAG  --if-modified-since RFC3339   (a #anchor selects a section)
  list      --page-size N  --cursor C  --include-archived
  lookup    --query Q  --limit N  --filter F  --match catalog|body
  publish   --body TEXT | --body-file FILE|-   --expected-version N
  append    --body TEXT | --body-file FILE|-   --expected-version N
Output:
  --raw                   print the response bytes exactly as received

Exit status: 0 for ok/created/not-modified, 3 for any other status or a #anchor the
document lacks, 1 when no answer came, 2 for usage.`;

const verbs: Record<string, Verb> = {
  fetch: 'FETCH',
  list: 'LIST',
  versions: 'VERSIONS',
  lookup: 'LOOKUP',
  publish: 'PUBLISH',
  append: 'APPEND',
  archive: 'ARCHIVE',
};

const metaFlags = {
  'if-none-match': 'if-none-match',
  'if-modified-since': 'if-modified-since',
  'page-size': 'page-size',
  cursor: 'cursor',
  query: 'query',
  limit: 'limit',
  filter: 'filter',
  match: 'match',
  'expected-version': 'expected-version',
} as const;

export async function runMarkCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      ...directWorldOptions,
      timeout: { type: 'string' },
      token: { type: 'string' },
      meta: { type: 'string', multiple: true },
      body: { type: 'string' },
      'body-file': { type: 'string' },
      'include-archived': { type: 'boolean' },
      raw: { type: 'boolean' },
      ...Object.fromEntries(Object.keys(metaFlags).map((flag) => [flag, { type: 'string' as const }])),
    },
    help,
    { positionals: true },
  );
  if (parsed === null) return 0;
  const { values, positionals } = parsed;
  const [verbName, urlText] = positionals;
  const verb = verbName === undefined ? undefined : verbs[verbName.toLowerCase()];
  if (verb === undefined || urlText === undefined || positionals.length > 2)
    throw new UsageError(`expected <verb> <mark-url>; verbs: ${Object.keys(verbs).join(', ')}`);
  const url = markUrlArgument(urlText);
  const timeoutMs = numberFlag('--timeout', values.timeout, { min: 1, max: maxTimeoutMs, unit: 'milliseconds' });
  const metadata = buildMetadata(values as Record<string, unknown>);
  const body = await readBody(values.body, values['body-file']);
  const client = await directWorldClient(values);
  try {
    const response = await client.call(directWorldAuthority(url, values), {
      verb,
      path: url.path,
      metadata,
      body,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
    const shown = verb === 'FETCH' && url.fragment ? selectSection(response, url.fragment) : response;
    if (shown === null) {
      // An answer came, so this is not a usage error: exit 3, as for any answer that is not ok (help text).
      console.error(`demarkus-broker mark: no section with anchor #${url.fragment} in ${url.path}`);
      return 3;
    }
    process.stdout.write(values.raw ? encodeResponse(shown) : readable(shown));
    return [Status.Ok, Status.Created, Status.NotModified].includes(shown.status as never) ? 0 : 3;
  } catch (error) {
    throw explained(error, url, values.ca !== undefined || values.insecure === true);
  } finally {
    await client.close();
  }
}

function buildMetadata(values: Record<string, unknown>): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of (values.meta as string[] | undefined) ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--meta expects KEY=VALUE, got "${pair}"`);
    metadata[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  for (const [flag, key] of Object.entries(metaFlags)) {
    const value = values[flag];
    if (typeof value === 'string') metadata[key] = value;
  }
  if (values['include-archived']) metadata['include-archived'] = 'true';
  const token = (values.token as string | undefined) ?? process.env.DEMARKUS_TOKEN;
  if (token) metadata.auth = token;
  return metadata;
}

async function readBody(text: string | undefined, file: string | undefined): Promise<Uint8Array> {
  if (text !== undefined && file !== undefined) throw new UsageError('use either --body or --body-file');
  if (text !== undefined) return Buffer.from(text);
  if (file === undefined) return new Uint8Array(0);
  if (file !== '-') return readFile(file);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A `#anchor` selects one section client-side; it is never sent on the wire. Null when the document has no such section. */
function selectSection(response: MarkResponse, anchor: string): MarkResponse | null {
  if (response.status !== Status.Ok) return response;
  const section = findSection(Buffer.from(response.body).toString(), anchor);
  return section === null ? null : { ...response, body: Buffer.from(section) };
}

function readable(response: MarkResponse): string {
  const lines = [`status: ${response.status || '(none)'}`];
  for (const key of Object.keys(response.metadata).sort()) lines.push(`${key}: ${response.metadata[key]}`);
  const body = Buffer.from(response.body).toString();
  return `${lines.join('\n')}\n${body === '' ? '' : `\n${body.replace(/^\n/, '')}${body.endsWith('\n') ? '' : '\n'}`}`;
}

/**
 * A transport failure with what to do next: an untrusted certificate names
 * --ca and --insecure, and a bare name on the default port that does not
 * answer is most likely a world name, which only the broker resolves.
 */
function explained(error: unknown, url: MarkUrl, trustGiven: boolean): unknown {
  if (!(error instanceof MarkTransportError)) return error;
  if (error.code === 'ERR_TLS_HANDSHAKE' && !trustGiven) {
    return new Error(
      `${error.message}: the server's certificate is not trusted here. For the worlds of npm start pass --ca data/tls/cert.pem; for another server its CA with --ca FILE, or --insecure to skip the check (development only)`,
      { cause: error },
    );
  }
  const host = bareHost(url.host);
  const looksLikeWorldName = !host.includes('.') && !host.includes(':') && host !== 'localhost';
  if (
    (error.code === 'ERR_DIAL_FAILED' || error.code === 'ERR_TIMEOUT') &&
    looksLikeWorldName &&
    url.port === defaultPort
  ) {
    return new Error(
      `${error.message}. "${host}" looks like a world name (as in mark://${host}/... links): this command talks to one world server directly, by its address, e.g. mark://localhost:6401/... for npm start's first world (npm start prints each world's address); through the broker, world names work in any MCP client and in demarkus-broker search`,
      { cause: error },
    );
  }
  return error;
}
