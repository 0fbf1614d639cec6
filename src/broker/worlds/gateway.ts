import type { MarkResponse } from '../../protocol/response.ts';
import type { MarkCall } from '../../transport/mark-client.ts';
import type { Identity } from '../identity.ts';
import { CodedError } from '../../errors/coded-error.ts';

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
  /** A read (FETCH, LIST, VERSIONS, LOOKUP), sent without `auth`. */
  read(world: string, call: MarkCall): Promise<MarkResponse>;
  /**
   * A write (PUBLISH, APPEND, ARCHIVE) with the world's write token. Throws
   * WriteDeniedError when the identity is not an allowed writer (nothing is sent).
   */
  write(world: string, identity: Identity, call: MarkCall): Promise<MarkResponse>;
  close(): Promise<void>;
}

/** Failures the tools turn into tool errors; codes never change once shipped. */
export type WorldGatewayErrorCode =
  | 'ERR_WORLD_NOT_FOUND'
  | 'ERR_WORLD_UNAVAILABLE'
  | 'ERR_WRITE_DENIED'
  | 'ERR_OUTCOME_UNKNOWN'
  | 'ERR_WRITE_TOKEN_REJECTED'
  | 'ERR_EMAIL_UNVERIFIED'
  /** The write token could not be read, created or synced into the world's tokens (storage failure); nothing was sent. */
  | 'ERR_WRITE_TOKEN_UNAVAILABLE';

export class WorldGatewayError extends CodedError<WorldGatewayErrorCode> {
  readonly world: string;
  constructor(code: WorldGatewayErrorCode, world: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.world = world;
  }
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

/** Why a world could not be reached; `circuit-open` means no request was sent at all. */
export type WorldUnavailableReason = 'circuit-open' | 'timeout' | 'transport' | 'invalid-response' | 'closed';

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
