import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDevCertificate, type TlsKeyPair } from '../../src/transport/index.ts';
import { MarkClient } from '../../src/transport/mark-client.ts';
import { startWorldServer, type WorldServer } from '../../src/world/world-server.ts';
import { generateToken, hashToken } from '../../src/protocol/token.ts';
import { encodeRequest } from '../../src/protocol/request.ts';
import { parseResponse, type MarkResponse } from '../../src/protocol/response.ts';
import type { Verb } from '../../src/protocol/verbs.ts';
import type { WorldOptions } from '../../src/world/world.ts';

export const pinnedNow = () => new Date('2026-01-01T00:00:00Z');

let sharedTls: Promise<TlsKeyPair> | undefined;
/** One certificate per test process: generating EC keys is cheap, but not free. */
export function testTls(): Promise<TlsKeyPair> {
  sharedTls ??= generateDevCertificate();
  return sharedTls;
}

export type TokenSpec = { label: string; paths: string[]; operations: string[]; expires?: string };

export function tokensToml(specs: Array<TokenSpec & { raw: string }>): string {
  return specs
    .map((s) =>
      [
        `[tokens.${s.label}]`,
        `hash = "${hashToken(s.raw)}"`,
        `paths = [${s.paths.map((p) => JSON.stringify(p)).join(', ')}]`,
        `operations = [${s.operations.map((o) => JSON.stringify(o)).join(', ')}]`,
        ...(s.expires ? [`expires = "${s.expires}"`] : []),
        '',
      ].join('\n'),
    )
    .join('\n');
}

/**
 * A named world server as the broker tests run one: on 127.0.0.1 at `port` (0, the default, for any
 * free port), with the clock pinned, the shared dev certificate and no rate limit unless `rateLimit`
 * gives one, over the store at `root` and the tokens in `tokensFile`.
 */
export async function startLoopbackWorldServer(options: {
  name: string;
  root: string;
  tokensFile: string;
  port?: number;
  rateLimit?: { perSecond: number; burst: number };
}): Promise<WorldServer> {
  return startWorldServer({
    root: options.root,
    tokensFile: options.tokensFile,
    name: options.name,
    now: pinnedNow,
    listen: { host: '127.0.0.1', port: options.port ?? 0 },
    tls: await testTls(),
    rateLimit: options.rateLimit ?? { perSecond: 0, burst: 1 },
  });
}

export type WorldFixture = {
  dir: string;
  server: WorldServer;
  client: MarkClient;
  /** Raw tokens by label. */
  tokens: Record<string, string>;
  /** What `client` dials: `localhost` (in the dev certificate) at the loopback address. */
  authority: { host: string; port: number; dialHost: string };
  call(verb: Verb, path: string, metadata?: Record<string, string>, body?: string | Uint8Array): Promise<MarkResponse>;
  /** The same request answered in-process (no QUIC), for bulk cases. */
  local(verb: Verb, path: string, metadata?: Record<string, string>, body?: string | Uint8Array): Promise<MarkResponse>;
  raw(bytes: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
};

/**
 * A real world server on 127.0.0.1 (ephemeral port, real QUIC) over a fresh
 * temporary store, with the clock pinned and the given tokens. `tokens: null`
 * means no tokens file at all.
 */
export async function startWorldFixture(
  options: { tokens?: TokenSpec[] | null; world?: Partial<WorldOptions> } = {},
): Promise<WorldFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'demarkus-world-'));
  const specs =
    options.tokens === undefined ? [{ label: 'writer', paths: ['/**'], operations: ['publish'] }] : options.tokens;
  const tokens: Record<string, string> = {};
  let tokensFile: string | undefined;
  if (specs !== null) {
    const withRaw = specs.map((s) => ({ ...s, raw: generateToken() }));
    for (const s of withRaw) tokens[s.label] = s.raw;
    tokensFile = join(dir, 'tokens.toml');
    await writeFile(tokensFile, tokensToml(withRaw));
  }
  const tls = await testTls();
  const server = await startWorldServer({
    root: join(dir, 'root'),
    ...(tokensFile ? { tokensFile } : {}),
    now: pinnedNow,
    listen: { host: '127.0.0.1', port: 0 },
    tls,
    rateLimit: { perSecond: 0, burst: 1 },
    ...options.world,
  });
  // A fixture's calls set up and inspect state; they are not what a test measures, so a loaded
  // machine (a 1 MB publish beside other suites) gets 30 s rather than the client's 10 s default.
  const client = new MarkClient({ ca: tls.cert, requestTimeoutMs: 30_000 });
  // quiche verifies the server name against DNS SANs only, so the authority is
  // `localhost` (in the dev certificate) while the dial address stays loopback.
  const authority = { host: 'localhost', port: server.port, dialHost: '127.0.0.1' };
  const toBody = (body: string | Uint8Array | undefined) =>
    typeof body === 'string' ? Buffer.from(body) : (body ?? new Uint8Array(0));
  return {
    dir,
    server,
    client,
    tokens,
    authority,
    call: (verb, path, metadata = {}, body) => client.call(authority, { verb, path, metadata, body: toBody(body) }),
    local: async (verb, path, metadata = {}, body) =>
      server.world.respond({ bytes: encodeRequest({ verb, path, metadata, body: toBody(body) }) }),
    raw: (bytes) => client.transport.request(authority, bytes, { idempotent: true }),
    async close() {
      await client.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const text = (response: MarkResponse) => Buffer.from(response.body).toString();
export { parseResponse };
