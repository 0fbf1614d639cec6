import { MarkClient } from '../../../src/transport/mark-client.ts';
import type { MarkCall } from '../../../src/transport/mark-client.ts';
import type { MarkAuthority } from '../../../src/transport/authority.ts';
import type { MarkResponse } from '../../../src/protocol/response.ts';
import type { Identity } from '../../../src/broker/identity.ts';
import { isReadVerb, isWriteVerb } from '../../../src/protocol/verbs.ts';
import {
  WorldGatewayError,
  worldNotFoundError,
  WriteDeniedError,
  type WorldGateway,
  type WorldInfo,
} from '../../../src/broker/worlds/gateway.ts';
import { startWorldFixture, testTls, type TokenSpec, type WorldFixture } from '../../world/world-fixture.ts';

/**
 * A small WorldGateway for the graph tests: world names mapped to real world
 * servers (QUIC on 127.0.0.1, dialled as `localhost`) through MarkClient.
 * Reads go without a token; writes carry the world's `writer` token when the
 * identity's email is in `writers`. Every call is recorded, and a world can
 * be made unreachable to simulate an outage. It keeps the gateway contract
 * (test/broker/worlds/gateway-contract.ts).
 */
export type RecordedCall = { world: string; verb: string; path: string; metadata: Record<string, string> };

/** `now` is the world's clock (default: pinned to 2026-01-01, as the world fixture does). */
export type TestWorldSpec = {
  name: string;
  address?: string;
  publicUrl?: string;
  now?: () => Date;
  /** The world's tokens (default: one `writer` token that may publish everywhere). */
  tokens?: TokenSpec[];
};

export class TestGateway implements WorldGateway {
  readonly calls: RecordedCall[] = [];
  readonly unreachable = new Set<string>();
  readonly writers = new Set<string>();
  readonly fixtures = new Map<string, WorldFixture>();
  readonly #infos: WorldInfo[] = [];
  readonly #authorities = new Map<string, MarkAuthority>();
  readonly #client: MarkClient;

  private constructor(client: MarkClient) {
    this.#client = client;
  }

  static async start(specs: readonly TestWorldSpec[]): Promise<TestGateway> {
    const tls = await testTls();
    const gateway = new TestGateway(new MarkClient({ ca: tls.cert }));
    for (const spec of specs) {
      const fixture = await startWorldFixture({
        world: { name: spec.name, ...(spec.now ? { now: spec.now } : {}) },
        ...(spec.tokens ? { tokens: spec.tokens } : {}),
      });
      gateway.fixtures.set(spec.name, fixture);
      gateway.#authorities.set(spec.name, { host: 'localhost', port: fixture.server.port, dialHost: '127.0.0.1' });
      gateway.#infos.push({
        name: spec.name,
        address: spec.address ?? `localhost:${fixture.server.port}`,
        ...(spec.publicUrl ? { publicUrl: spec.publicUrl } : {}),
        source: 'config',
      });
    }
    return gateway;
  }

  list(): readonly WorldInfo[] {
    return this.#infos;
  }

  get(name: string): WorldInfo | undefined {
    return this.#infos.find((w) => w.name === name);
  }

  canWrite(world: string, identity: Identity): boolean {
    return this.get(world) !== undefined && identity.emailVerified && this.writers.has(identity.email);
  }

  async read(world: string, call: MarkCall): Promise<MarkResponse> {
    if (!isReadVerb(call.verb)) throw new TypeError(`read() takes a read verb, not ${call.verb}`);
    const { auth: _auth, ...metadata } = call.metadata ?? {};
    return this.#send(world, { ...call, metadata });
  }

  async write(world: string, identity: Identity, call: MarkCall): Promise<MarkResponse> {
    if (!isWriteVerb(call.verb)) throw new TypeError(`write() takes a write verb, not ${call.verb}`);
    if (this.get(world) === undefined) return this.#send(world, call);
    if (!this.canWrite(world, identity))
      throw new WriteDeniedError(identity.emailVerified ? 'ERR_WRITE_DENIED' : 'ERR_EMAIL_UNVERIFIED', world);
    const token = this.fixtures.get(world)!.tokens.writer!;
    return this.#send(world, { ...call, metadata: { ...call.metadata, auth: token } });
  }

  /** Publishes a document directly (as the world's writer), outside the recorded calls. */
  async publish(
    world: string,
    path: string,
    body: string,
    metadata: Record<string, string> = {},
  ): Promise<MarkResponse> {
    const fixture = this.fixtures.get(world)!;
    const response = await fixture.call('PUBLISH', path, { ...metadata, auth: fixture.tokens.writer! }, body);
    if (response.status !== 'ok' && response.status !== 'created')
      throw new Error(`publish ${world}${path}: ${response.status} ${Buffer.from(response.body).toString()}`);
    return response;
  }

  /** Archives a document directly (as the world's writer). */
  async archive(world: string, path: string): Promise<void> {
    const fixture = this.fixtures.get(world)!;
    const response = await fixture.call('ARCHIVE', path, { auth: fixture.tokens.writer! });
    if (response.status !== 'ok') throw new Error(`archive ${world}${path}: ${response.status}`);
  }

  callsTo(verb: string, path?: string): RecordedCall[] {
    return this.calls.filter((c) => c.verb === verb && (path === undefined || c.path === path));
  }

  async close(): Promise<void> {
    await this.#client.close();
    await Promise.all([...this.fixtures.values()].map((f) => f.close()));
  }

  async #send(world: string, call: MarkCall): Promise<MarkResponse> {
    const authority = this.#authorities.get(world);
    if (authority === undefined) throw worldNotFoundError(world, this.list());
    const { auth: _auth, ...visible } = call.metadata ?? {};
    this.calls.push({ world, verb: call.verb, path: call.path, metadata: visible });
    if (this.unreachable.has(world))
      throw new WorldGatewayError('ERR_WORLD_UNAVAILABLE', world, `world "${world}" is unavailable`);
    return this.#client.call(authority, call);
  }
}

export const writerIdentity: Identity = {
  subject: 'writer-subject',
  email: 'writer@example.com',
  emailVerified: true,
  groups: [],
  issuedBy: 'broker',
};

export const readerIdentity: Identity = { ...writerIdentity, subject: 'reader-subject', email: 'reader@example.com' };

/** The real gateway; while `hold()` is on, the answers of `only` (default: every world) wait for `release()`. */
export function holdable(gateway: TestGateway, only?: string) {
  let held: Promise<void> | null = null;
  let release = () => {};
  const view: WorldGateway = {
    list: () => gateway.list(),
    get: (name) => gateway.get(name),
    canWrite: (world, identity) => gateway.canWrite(world, identity),
    read: async (world: string, call: MarkCall) => {
      if (held !== null && (only === undefined || world === only)) await held;
      return gateway.read(world, call);
    },
    write: (world, identity, call) => gateway.write(world, identity, call),
    close: async () => {},
  };
  return {
    view,
    hold: () => {
      held = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => {
      held = null;
      release();
    },
  };
}
