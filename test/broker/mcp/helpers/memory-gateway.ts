import type { MarkCall } from '../../../../src/transport/mark-client.ts';
import type { MarkResponse } from '../../../../src/protocol/response.ts';
import type { Metadata } from '../../../../src/protocol/metadata.ts';
import type { Identity } from '../../../../src/broker/identity.ts';
import { worldNotFoundError, type WorldGateway, type WorldInfo } from '../../../../src/broker/worlds/gateway.ts';

/**
 * An in-memory WorldGateway for pure formatting and merging rules only
 * (answers no real world would give, such as a lying content-hash). Each
 * world is a function from a call to a response.
 */
export type Answer = (call: MarkCall) => MarkResponse | Promise<MarkResponse>;

export function response(status: string, metadata: Metadata = {}, body = ''): MarkResponse {
  return { status, metadata, body: Buffer.from(body) };
}

export class MemoryGateway implements WorldGateway {
  readonly #worlds: Map<string, Answer>;
  readonly calls: Array<{ world: string } & MarkCall> = [];

  constructor(worlds: Record<string, Answer>) {
    this.#worlds = new Map(Object.entries(worlds));
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

  canWrite(): boolean {
    return true;
  }

  async read(world: string, call: MarkCall): Promise<MarkResponse> {
    const answer = this.#worlds.get(world);
    if (answer === undefined) throw worldNotFoundError(world, this.list());
    this.calls.push({ world, ...call });
    return answer(call);
  }

  write(world: string, _identity: Identity, call: MarkCall): Promise<MarkResponse> {
    return this.read(world, call);
  }

  async close(): Promise<void> {}
}
