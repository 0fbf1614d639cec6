import { knownWorldsHint } from './world-aliases.ts';
import type { WatchBlock } from '../../protocol/watch.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { MarkCall } from '../../transport/mark-client.ts';
import type { Identity } from '../identity.ts';
import { CodedError } from '../../errors/coded-error.ts';
import type { WorldHealth } from './world-health.ts';

/** A world the broker can route to. */
export type WorldInfo = {
  /** Logical name: the only authority accepted in tool URLs (`mark://{name}/{path}`). */
  name: string;
  /** Dial address `host:port` (configured `internalAddress` or `<name>.<namespace>.svc.cluster.local:6309`). */
  address: string;
  /** External `mark://host:port` for humans and clients, when configured. */
  publicUrl?: string;
  /** Where the world came from: the config file or Kubernetes Service discovery. */
  source: 'config' | 'discovery';
};

/**
 * The broker's only way to talk to worlds. Reads go without a token; writes
 * carry the world's broker write token after the writer allowlist check.
 * Implementations isolate worlds from each other: a dead or slow world fails
 * fast (timeouts, a short cool-down after repeated transport failures) and
 * never delays calls to other worlds.
 */
export interface WorldGateway {
  list(): readonly WorldInfo[];
  get(name: string): WorldInfo | undefined;
  /** Whether `identity` passes the world's writer allowlist (emails, domains, groups). */
  canWrite(world: string, identity: Identity): boolean;
  /**
   * A read (FETCH, LIST, VERSIONS, LOOKUP), sent without `auth`. `caller` (a
   * subject) is whose share of the world's streams it uses; absent, the
   * broker's own (graph seeding and refreshes, the federation crawl). Reads
   * made for a caller (mark_graph's crawl too) go through the caller's view,
   * src/broker/worlds/caller-gateway.ts.
   */
  read(world: string, call: MarkCall, caller?: string): Promise<MarkResponse>;
  /**
   * A write (PUBLISH, APPEND, ARCHIVE) with the world's write token. Throws
   * WriteDeniedError when the identity is not an allowed writer, and
   * ReadProtectedWriteError when the caller may not read the target (nothing
   * is written in either case).
   */
  write(world: string, identity: Identity, call: MarkCall): Promise<MarkResponse>;
  /**
   * What the broker knows of a world's health (src/broker/worlds/world-health.ts);
   * undefined for an unknown world. Gateways that keep no health leave it out.
   */
  health?(world: string): WorldHealth | undefined;
  close(): Promise<void>;
}

/**
 * A world's change feed, where the gateway can open one (src/broker/changes):
 * the WATCH stream's blocks for `path`, tokenless, until `signal` aborts or the
 * world ends the stream. A world without WATCH answers one refusal block.
 */
export interface WorldChangeSource {
  watch(world: string, watch: { path: string; since?: string }, signal: AbortSignal): AsyncIterable<WatchBlock>;
}

/** Failures the tools turn into tool errors; codes never change once shipped. */
export type WorldGatewayErrorCode =
  | 'ERR_WORLD_NOT_FOUND'
  | 'ERR_WORLD_UNAVAILABLE'
  | 'ERR_WRITE_DENIED'
  | 'ERR_OUTCOME_UNKNOWN'
  | 'ERR_WRITE_TOKEN_REJECTED'
  | 'ERR_EMAIL_UNVERIFIED'
  /** The target is read-protected on the world and the caller may not read it; nothing was written. */
  | 'ERR_WRITE_READ_PROTECTED'
  /** The write token could not be read, created or synced into the world's tokens (storage failure); nothing was sent. */
  | 'ERR_WRITE_TOKEN_UNAVAILABLE';

export class WorldGatewayError extends CodedError<WorldGatewayErrorCode> {
  readonly world: string;
  constructor(code: WorldGatewayErrorCode, world: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.world = world;
  }
}

/** ERR_WORLD_NOT_FOUND in the reference's words (`errWorldNotFound`), naming the worlds there are. */
export function worldNotFoundError(world: string, known: readonly WorldInfo[]): WorldGatewayError {
  return new WorldGatewayError(
    'ERR_WORLD_NOT_FOUND',
    world,
    `broker: unknown world ${JSON.stringify(world)} (not in broker config; ${knownWorldsHint(known)})`,
  );
}

/**
 * The identity may not write to the world (ERR_WRITE_DENIED: not on the
 * writer allowlist; ERR_EMAIL_UNVERIFIED: no verified email). Thrown before
 * anything is sent.
 */
export class WriteDeniedError extends WorldGatewayError {
  constructor(code: 'ERR_WRITE_DENIED' | 'ERR_EMAIL_UNVERIFIED', world: string) {
    super(
      code,
      world,
      code === 'ERR_WRITE_DENIED'
        ? `write access denied for world ${JSON.stringify(world)}`
        : 'identity email is not verified',
    );
  }
}

/**
 * The broker never writes where its caller could not read (no confused
 * deputy): the world protects `path` for reading and the caller holds no read
 * right there. The same answer for an existing and a missing document, so it
 * reveals neither existence nor version.
 */
export class ReadProtectedWriteError extends WorldGatewayError {
  readonly path: string;
  constructor(world: string, path: string) {
    super(
      'ERR_WRITE_READ_PROTECTED',
      world,
      `write refused: ${path} is read-protected on world ${JSON.stringify(world)} and you may not read it there; the broker only writes where its caller may read`,
    );
    this.path = path;
  }
}

/** Why a world could not be reached; `circuit-open` means no request was sent at all. */
export type WorldUnavailableReason =
  | 'circuit-open'
  | 'timeout'
  | 'transport'
  | 'invalid-response'
  | 'closed'
  /** The caller's own calls fill its share of the world's streams: the broker's queueing, not the world's failure. */
  | 'busy'
  /** The world answered the read check before a write with neither yes nor no (rate-limited, server-error, ...); nothing was written. */
  | 'read-check';

/** ERR_WORLD_UNAVAILABLE with what a caller may act on: the reason and, for an open circuit, when to try again. */
export class WorldUnavailableError extends WorldGatewayError {
  readonly reason: WorldUnavailableReason;
  /** For `circuit-open`: milliseconds until the next probe is let through. */
  readonly retryAfterMs: number | undefined;
  constructor(
    world: string,
    reason: WorldUnavailableReason,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super('ERR_WORLD_UNAVAILABLE', world, message, options);
    this.reason = reason;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/**
 * The world did not say whether the caller may read a write's target (its
 * answer to the read check was neither readable nor refused,
 * src/broker/worlds/read-right-probe.ts): the write is not sent, since the
 * broker's token would write where the caller may not read. Retryable.
 */
export function readCheckUnansweredError(world: string, path: string, status: string): WorldUnavailableError {
  return new WorldUnavailableError(
    world,
    'read-check',
    `write refused: world ${JSON.stringify(world)} answered ${status} when the broker checked that you may read ${path} there, so nothing was written; try again shortly`,
  );
}
