/**
 * The WorldGateway over real QUIC: a registry of worlds, one WorldConnection
 * (own client, deadline, circuit) per world, created on first use and dropped
 * when the world leaves the registry or changes address; reads go without a
 * token, writes pass the writer allowlist and carry the world's write token
 * and the caller's identity as `agent`.
 */
import type { MarkResponse } from '../../protocol/response.ts';
import { isReadVerb, isWriteVerb } from '../../protocol/verbs.ts';
import type { Metadata } from '../../protocol/metadata.ts';
import type { WatchBlock } from '../../protocol/watch.ts';
import type { MarkCall } from '../../transport/mark-client.ts';
import type { Identity } from '../identity.ts';
import { worldAllows } from './allowlist.ts';
import type { CircuitState } from './circuit-breaker.ts';
import { unknownHealth, type WorldHealth } from './world-health.ts';
import { sendWithFirstMintRetry, type FirstMintPolicy } from './first-mint.ts';
import {
  ReadProtectedWriteError,
  readCheckUnansweredError,
  WorldGatewayError,
  WriteDeniedError,
  worldNotFoundError,
  type WorldChangeSource,
  type WorldGateway,
  type WorldInfo,
} from './gateway.ts';
import { readRightOf, readRightProbe } from './read-right-probe.ts';
import { noopWorldGatewayMetrics, type WorldGatewayMetrics } from './metrics.ts';
import type { WorldChange, WorldRegistry } from './registry.ts';
import { worldInfoOf, type WorldDefinition } from './world-definition.ts';
import { WorldConnection, type WorldDialerSettings } from './world-connection.ts';
import type { WriteTokenProvisioner } from './write-tokens/index.ts';

export type MarkWorldGatewayOptions = {
  registry: WorldRegistry;
  dialer: WorldDialerSettings;
  writeTokens: WriteTokenProvisioner;
  firstMint: FirstMintPolicy;
  metrics?: WorldGatewayMetrics;
  /** Monotonic milliseconds for the circuit breakers; default `performance.now`. */
  now?: () => number;
  /** Backoff waits of the first-mint loop; default real timers. */
  wait?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
};

export class MarkWorldGateway implements WorldGateway, WorldChangeSource {
  readonly registry: WorldRegistry;
  readonly #options: MarkWorldGatewayOptions;
  readonly #metrics: WorldGatewayMetrics;
  readonly #connections = new Map<string, WorldConnection>();
  readonly #closing = new Set<Promise<void>>();
  readonly #unsubscribe: () => void;
  #infos: readonly WorldInfo[] | null = null;
  #closed = false;

  constructor(options: MarkWorldGatewayOptions) {
    this.registry = options.registry;
    this.#options = options;
    this.#metrics = options.metrics ?? noopWorldGatewayMetrics;
    this.#unsubscribe = options.registry.onChange((change) => this.#onChange(change));
  }

  list(): readonly WorldInfo[] {
    this.#infos ??= this.registry.list().map(worldInfoOf);
    return this.#infos;
  }

  get(name: string): WorldInfo | undefined {
    const world = this.registry.get(name);
    return world === undefined ? undefined : worldInfoOf(world);
  }

  canWrite(world: string, identity: Identity): boolean {
    const definition = this.registry.get(world);
    return definition !== undefined && worldAllows(definition.allow, identity);
  }

  /** `closed` for a world never called yet; undefined for an unknown world. */
  circuitState(world: string): CircuitState | undefined {
    if (this.registry.get(world) === undefined) return undefined;
    return this.#connections.get(world)?.circuitState ?? 'closed';
  }

  /** `unknown` for a world never called yet; undefined for an unknown world. */
  health(world: string): WorldHealth | undefined {
    if (this.registry.get(world) === undefined) return undefined;
    return this.#connections.get(world)?.health ?? unknownHealth;
  }

  /**
   * Every routed world's circuit and open QUIC connections, for the metrics at
   * scrape time: a world never called (or just moved, its connection dropped) is
   * `closed` with none, and a removed world is not listed.
   */
  *worldStates(): Iterable<{ world: string; circuit: CircuitState; connections: number }> {
    for (const { name } of this.registry.list()) {
      const connection = this.#connections.get(name);
      yield {
        world: name,
        circuit: connection?.circuitState ?? 'closed',
        connections: connection?.openConnections ?? 0,
      };
    }
  }

  async read(world: string, call: MarkCall, caller?: string): Promise<MarkResponse> {
    if (!isReadVerb(call.verb)) throw new TypeError(`read() takes FETCH, LIST, VERSIONS or LOOKUP, not ${call.verb}`);
    const definition = this.#require(world);
    // As the Go broker: reads go with an empty token; never pass a caller's through.
    const { auth: _dropped, ...metadata } = call.metadata ?? {};
    return this.#connection(definition).send({ ...call, metadata }, caller);
  }

  async write(world: string, identity: Identity, call: MarkCall): Promise<MarkResponse> {
    if (!isWriteVerb(call.verb)) throw new TypeError(`write() takes PUBLISH, APPEND or ARCHIVE, not ${call.verb}`);
    const definition = this.#require(world);
    if (!identity.emailVerified) throw new WriteDeniedError('ERR_EMAIL_UNVERIFIED', world);
    if (!worldAllows(definition.allow, identity)) throw new WriteDeniedError('ERR_WRITE_DENIED', world);
    const agent = identity.email.trim().toLowerCase();
    const provisioner = this.#options.writeTokens;
    const connection = this.#connection(definition);
    // The broker's token may write anywhere; the caller may only write where it may read.
    // Only a plain "readable" lets the write go: a busy or failing world has not said yes (fail closed).
    const probe = await connection.send(readRightProbe(call), identity.subject);
    const right = readRightOf(probe);
    if (right === 'refused') throw new ReadProtectedWriteError(world, call.path);
    if (right === 'unconfirmed') throw readCheckUnansweredError(world, call.path, probe.status);
    const response = await sendWithFirstMintRetry(await this.#provision(definition), this.#options.firstMint, {
      send: (token) =>
        connection.send({ ...call, metadata: writeMetadata(call.metadata, token, agent) }, identity.subject),
      reprovision: () => {
        provisioner.invalidate(world);
        return this.#provision(definition);
      },
      ...(call.signal === undefined ? {} : { signal: call.signal }),
      ...(this.#options.wait === undefined ? {} : { wait: this.#options.wait }),
    });
    if (response !== null) return response;
    const attempts = Math.max(1, this.#options.firstMint.maxAttempts);
    throw new WorldGatewayError(
      'ERR_WRITE_TOKEN_REJECTED',
      world,
      `broker: world ${world} rejected write token after ${attempts} attempts (token propagation lag exceeded broker deadline)`,
    );
  }

  watch(world: string, watch: { path: string; since?: string }, signal: AbortSignal): AsyncIterable<WatchBlock> {
    return this.#connection(this.#require(world)).watch(watch, signal);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe();
    for (const name of [...this.#connections.keys()]) this.#drop(name);
    await Promise.all(this.#closing);
  }

  #require(world: string): WorldDefinition {
    const definition = this.registry.get(world);
    if (definition === undefined) throw worldNotFoundError(world, this.list());
    return definition;
  }

  async #provision(world: WorldDefinition): Promise<string> {
    try {
      return await this.#options.writeTokens.token(world);
    } catch (cause) {
      throw new WorldGatewayError(
        'ERR_WRITE_TOKEN_UNAVAILABLE',
        world.name,
        `broker: cannot provision the write token of world ${world.name}`,
        { cause },
      );
    }
  }

  #connection(world: WorldDefinition): WorldConnection {
    if (this.#closed) throw new WorldGatewayError('ERR_WORLD_UNAVAILABLE', world.name, 'the world gateway is closed');
    let connection = this.#connections.get(world.name);
    if (connection === undefined) {
      connection = new WorldConnection(world, this.#options.dialer, {
        metrics: this.#metrics,
        now: this.#options.now ?? (() => performance.now()),
      });
      this.#connections.set(world.name, connection);
    }
    return connection;
  }

  #onChange(change: WorldChange): void {
    this.#infos = null;
    const moved =
      change.type === 'updated' &&
      (change.world.address !== change.previous.address || change.world.serverName !== change.previous.serverName);
    if (change.type === 'removed' || moved) this.#drop(change.world.name);
    if (change.type !== 'added') this.#options.writeTokens.invalidate(change.world.name);
  }

  #drop(name: string): void {
    const connection = this.#connections.get(name);
    if (connection === undefined) return;
    this.#connections.delete(name);
    const closing = connection.close().catch(() => {});
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
  }
}

/** Writes carry the write token and the caller's canonical email; a caller's own `auth` or `agent` never wins. */
function writeMetadata(metadata: Metadata | undefined, token: string, agent: string): Metadata {
  return { ...metadata, auth: token, agent };
}
