import { MarkClient } from '../../../../src/transport/mark-client.ts';
import type { MarkCall } from '../../../../src/transport/mark-client.ts';
import { MarkTransportError } from '../../../../src/transport/errors.ts';
import type { MarkResponse } from '../../../../src/protocol/response.ts';
import type { Identity } from '../../../../src/broker/identity.ts';
import { isReadVerb, isWriteVerb } from '../../../../src/protocol/verbs.ts';
import {
  WorldGatewayError,
  worldNotFoundError,
  WriteDeniedError,
  type WorldGateway,
  type WorldInfo,
} from '../../../../src/broker/worlds/gateway.ts';
import { startWorldFixture, testTls, type TokenSpec, type WorldFixture } from '../../../world/world-fixture.ts';

/**
 * A thin WorldGateway over real world servers (QUIC on 127.0.0.1, dialled as
 * `localhost`): reads go without a token, writes carry the world's writer
 * token after an email allowlist check. It keeps the gateway contract
 * (test/broker/worlds/gateway-contract.ts); isolation and cool-downs are the
 * worlds module's business.
 */
export type TestWorld = { name: string; fixture: WorldFixture; writers: string[]; publicUrl?: string };

export class FixtureGateway implements WorldGateway {
  readonly #worlds: Map<string, TestWorld>;
  readonly #client: MarkClient;
  /** Every call sent, in order: lets a test prove that a refused write sent nothing. */
  readonly sent: Array<{ world: string; verb: string; path: string }> = [];

  constructor(worlds: TestWorld[], client: MarkClient) {
    this.#worlds = new Map(worlds.map((world) => [world.name, world]));
    this.#client = client;
  }

  list(): readonly WorldInfo[] {
    return [...this.#worlds.values()].map((world) => this.#info(world));
  }

  get(name: string): WorldInfo | undefined {
    const world = this.#worlds.get(name);
    return world ? this.#info(world) : undefined;
  }

  canWrite(world: string, identity: Identity): boolean {
    return identity.emailVerified && (this.#worlds.get(world)?.writers.includes(identity.email) ?? false);
  }

  async read(world: string, call: MarkCall): Promise<MarkResponse> {
    if (!isReadVerb(call.verb)) throw new TypeError(`read() takes a read verb, not ${call.verb}`);
    const { auth: _dropped, ...metadata } = call.metadata ?? {};
    return this.#send(world, { ...call, metadata });
  }

  async write(world: string, identity: Identity, call: MarkCall): Promise<MarkResponse> {
    if (!isWriteVerb(call.verb)) throw new TypeError(`write() takes a write verb, not ${call.verb}`);
    const target = this.#worlds.get(world);
    if (target === undefined) throw worldNotFoundError(world, this.list());
    if (!this.canWrite(world, identity))
      throw new WriteDeniedError(identity.emailVerified ? 'ERR_WRITE_DENIED' : 'ERR_EMAIL_UNVERIFIED', world);
    return this.#send(world, { ...call, metadata: { ...call.metadata, auth: target.fixture.tokens.writer! } });
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  async #send(world: string, call: MarkCall): Promise<MarkResponse> {
    const target = this.#worlds.get(world);
    if (target === undefined) throw worldNotFoundError(world, this.list());
    this.sent.push({ world, verb: call.verb, path: call.path });
    try {
      return await this.#client.call(
        { host: 'localhost', port: target.fixture.server.port, dialHost: '127.0.0.1' },
        call,
      );
    } catch (error) {
      if (!(error instanceof MarkTransportError)) throw error;
      const code = error.code === 'ERR_OUTCOME_UNKNOWN' ? 'ERR_OUTCOME_UNKNOWN' : 'ERR_WORLD_UNAVAILABLE';
      throw new WorldGatewayError(code, world, `world ${world} is unavailable`, { cause: error });
    }
  }

  #info(world: TestWorld): WorldInfo {
    return {
      name: world.name,
      address: `127.0.0.1:${world.fixture.server.port}`,
      source: 'config',
      ...(world.publicUrl ? { publicUrl: world.publicUrl } : {}),
    };
  }
}

export type TestStack = {
  gateway: FixtureGateway;
  worlds: Record<string, WorldFixture>;
  /** Publishes straight to a world (test setup), returning the new version. */
  seed(world: string, path: string, body: string, metadata?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
};

/** Real worlds named as given; alice may write every world. */
export async function startTestStack(
  names: string[],
  options: { writers?: Record<string, string[]>; tokens?: TokenSpec[] } = {},
): Promise<TestStack> {
  const fixtures = await Promise.all(
    names.map(() => startWorldFixture(options.tokens === undefined ? {} : { tokens: options.tokens })),
  );
  const worlds = Object.fromEntries(names.map((name, i) => [name, fixtures[i]!]));
  const client = new MarkClient({
    ca: (await testTls()).cert,
    dialTimeoutMs: 1000,
    requestTimeoutMs: 5000,
    maxAttempts: 2,
  });
  const gateway = new FixtureGateway(
    names.map((name) => ({ name, fixture: worlds[name]!, writers: options.writers?.[name] ?? ['alice@example.com'] })),
    client,
  );
  return {
    gateway,
    worlds,
    async seed(world, path, body, metadata = {}) {
      const fixture = worlds[world]!;
      const current = await fixture.call('VERSIONS', path);
      const expected = current.status === 'ok' ? current.metadata.current! : '0';
      const response = await fixture.call(
        'PUBLISH',
        path,
        { ...metadata, auth: fixture.tokens.writer!, 'expected-version': expected },
        body,
      );
      if (response.status !== 'created' && response.status !== 'ok')
        throw new Error(`seed ${world}${path}: ${response.status}`);
      return Number(response.metadata.version);
    },
    async close() {
      await gateway.close();
      await Promise.all(fixtures.map((fixture) => fixture.close().catch(() => undefined)));
    },
  };
}
