import type { Identity } from '../../../../src/broker/identity.ts';
import type { GraphService, SessionState, ToolContext } from '../../../../src/broker/mcp/definitions.ts';
import type { WorldGateway } from '../../../../src/broker/worlds/gateway.ts';

/** A session store of one session, as the HTTP layer would hand a tool. */
export class MemorySession implements SessionState {
  readonly id: string | undefined;
  readonly #values = new Map<string, unknown>();

  /** `null` for a stateless caller (no Mcp-Session-Id). */
  constructor(id: string | null = 'session-1') {
    this.id = id ?? undefined;
  }

  get<T>(key: string): T | undefined {
    return this.#values.get(key) as T | undefined;
  }

  set<T>(key: string, value: T): void {
    this.#values.set(key, value);
  }
}

export const alice: Identity = {
  subject: 'alice-sub',
  email: 'alice@example.com',
  emailVerified: true,
  groups: [],
  issuedBy: 'broker',
};

export const bob: Identity = { ...alice, subject: 'bob-sub', email: 'bob@example.com' };

export const testNow = () => new Date('2026-01-08T12:00:00Z');

export function toolContext(
  gateway: WorldGateway,
  options: { identity?: Identity; session?: SessionState; graph?: GraphService; now?: () => Date } = {},
): ToolContext {
  return {
    gateway,
    identity: options.identity ?? alice,
    session: options.session ?? new MemorySession(),
    signal: new AbortController().signal,
    now: options.now ?? testNow,
    ...(options.graph ? { graph: options.graph } : {}),
  };
}
