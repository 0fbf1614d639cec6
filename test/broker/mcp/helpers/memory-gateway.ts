import type { MarkCall } from '../../../../src/transport/mark-client.ts';
import type { MarkResponse } from '../../../../src/protocol/response.ts';
import type { Metadata } from '../../../../src/protocol/metadata.ts';
import { isReadVerb, isWriteVerb } from '../../../../src/protocol/verbs.ts';
import type { Identity } from '../../../../src/broker/identity.ts';
import {
  worldNotFoundError,
  WriteDeniedError,
  type WorldGateway,
  type WorldInfo,
} from '../../../../src/broker/worlds/gateway.ts';

/**
 * An in-memory WorldGateway for pure formatting and merging rules only
 * (answers no real world would give, such as a lying content-hash). Each
 * world is a function from a call to a response. It keeps the gateway
 * contract (test/broker/worlds/gateway-contract.ts): reads go without `auth`,
 * writes pass the writer allowlist first.
 */
export type Answer = (call: MarkCall) => MarkResponse | Promise<MarkResponse>;

export function response(status: string, metadata: Metadata = {}, body = ''): MarkResponse {
  return { status, metadata, body: Buffer.from(body) };
}

export type MemoryGatewayOptions = {
  /** Emails that may write; absent, every identity with a verified email may. */
  writers?: readonly string[];
};

export class MemoryGateway implements WorldGateway {
  readonly #worlds: Map<string, Answer>;
  readonly #writers: ReadonlySet<string> | undefined;
  readonly calls: Array<{ world: string } & MarkCall> = [];

  constructor(worlds: Record<string, Answer>, options: MemoryGatewayOptions = {}) {
    this.#worlds = new Map(Object.entries(worlds));
    this.#writers = options.writers === undefined ? undefined : new Set(options.writers);
  }

  list(): readonly WorldInfo[] {
    return [...this.#worlds.keys()].map((name) => ({
      name,
      address: `${name}.test.svc.cluster.local:6309`,
      source: 'config' as const,
    }));
  }

  get(name: string): WorldInfo | undefined {
    return this.list().find((world) => world.name === name);
  }

  canWrite(world: string, identity: Identity): boolean {
    return this.#worlds.has(world) && identity.emailVerified && (this.#writers?.has(identity.email) ?? true);
  }

  async read(world: string, call: MarkCall): Promise<MarkResponse> {
    if (!isReadVerb(call.verb)) throw new TypeError(`read() takes a read verb, not ${call.verb}`);
    const { auth: _dropped, ...metadata } = call.metadata ?? {};
    return this.#answer(world, { ...call, metadata });
  }

  async write(world: string, identity: Identity, call: MarkCall): Promise<MarkResponse> {
    if (!isWriteVerb(call.verb)) throw new TypeError(`write() takes a write verb, not ${call.verb}`);
    if (this.#worlds.has(world) && !this.canWrite(world, identity))
      throw new WriteDeniedError(identity.emailVerified ? 'ERR_WRITE_DENIED' : 'ERR_EMAIL_UNVERIFIED', world);
    return this.#answer(world, call);
  }

  async close(): Promise<void> {}

  async #answer(world: string, call: MarkCall): Promise<MarkResponse> {
    const answer = this.#worlds.get(world);
    if (answer === undefined) throw worldNotFoundError(world, this.list());
    this.calls.push({ world, ...call });
    return answer(call);
  }
}

/**
 * A world answering from a map of documents: FETCH and PUBLISH only, enough
 * for the gateway contract. `/private/**` is read-protected: a FETCH there
 * needs `readToken` as `auth`, as a `read` token works on a real world
 * (src/world/handler/read-auth.ts).
 */
export function memoryWorld(readToken: string): Answer {
  const documents = new Map<string, string>();
  return (call) => {
    if (call.verb === 'PUBLISH') {
      const created = !documents.has(call.path);
      documents.set(call.path, Buffer.from(call.body ?? '').toString());
      return response(created ? 'created' : 'ok', { version: '1' });
    }
    if (call.verb !== 'FETCH') return response('bad-request');
    if (call.path.startsWith('/private/') && call.metadata?.auth !== readToken) return response('unauthorized');
    const body = documents.get(call.path);
    return body === undefined ? response('not-found') : response('ok', { version: '1' }, body);
  };
}
