import type { WorldDocumentCache } from './world-document-cache.ts';
import {
  descriptorLimits,
  parseWorldDescriptor,
  worldDescriptorPath,
  type WorldDescriptor,
} from './world-descriptor.ts';

/**
 * A world's descriptor as `mark_worlds` shows it: parsed, absent, too large to parse (over
 * `descriptorLimits.maxBytes`), or not known because the world did not answer.
 */
export type DescriptorState =
  | { kind: 'present'; descriptor: WorldDescriptor; etag: string }
  | { kind: 'absent' }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'unknown'; reason: string };

/**
 * Every world's `/world.md`, read through the shared conditional cache and
 * parsed once per etag: a descriptor changes in `mark_worlds` as soon as the
 * world's etag does, and costs nothing in between.
 */
export class WorldDescriptors {
  readonly #documents: WorldDocumentCache;
  readonly #parsed = new Map<string, { etag: string; descriptor: WorldDescriptor }>();

  constructor(documents: WorldDocumentCache) {
    this.#documents = documents;
  }

  async describe(world: string): Promise<DescriptorState> {
    const state = await this.#documents.get(world, worldDescriptorPath);
    // A world.md behind read auth is not shown to anyone through the broker: the same as none (docs/knowledge.md).
    if (state.kind === 'protected') return { kind: 'absent' };
    if (state.kind !== 'present') return state;
    const { body, etag, metadata } = state.document;
    const bytes = Buffer.byteLength(body);
    if (bytes > descriptorLimits.maxBytes) return { kind: 'too-large', bytes };
    const held = this.#parsed.get(world);
    if (held !== undefined && held.etag === etag && etag !== '')
      return { kind: 'present', descriptor: held.descriptor, etag };
    const descriptor = parseWorldDescriptor(body, metadata);
    this.#parsed.set(world, { etag, descriptor });
    return { kind: 'present', descriptor, etag };
  }

  /**
   * Descriptors of several worlds at once, each checked in parallel. A world
   * slower than `waitMs` is reported `unknown` for this call; its check goes
   * on in the background and serves the next call.
   */
  async describeAll(
    worlds: readonly string[],
    options: { waitMs: number; signal?: AbortSignal },
  ): Promise<Map<string, DescriptorState>> {
    const late: DescriptorState = { kind: 'unknown', reason: 'the world did not answer in time' };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<DescriptorState>((resolve) => {
      timer = setTimeout(() => resolve(late), options.waitMs);
      options.signal?.addEventListener('abort', () => resolve(late), { once: true });
    });
    try {
      const pairs = await Promise.all(
        worlds.map(async (world) => [world, await Promise.race([this.describe(world), deadline])] as const),
      );
      return new Map(pairs);
    } finally {
      clearTimeout(timer);
    }
  }
}
