import type { Metadata } from '../protocol/metadata.ts';
import type { World } from './world.ts';

/**
 * Publishes a document into a world once, on first start: only when the path
 * has never held a document (a deleted or archived one counts as held), so an
 * owner's later edits are never overwritten by the seed on restart. Used by
 * `demarkus-broker world --seed-world-md` (the world chart's `seed.worldMd`).
 * Returns whether it wrote.
 */
export async function seedDocumentOnce(world: World, path: string, body: string, metadata: Metadata): Promise<boolean> {
  const { store } = world.context;
  if ((await store.history(path)) !== null) return false;
  const outcome = await store.publish(
    path,
    Buffer.from(body),
    { ...metadata, agent: 'world-seed' },
    { expectedVersion: 0 },
  );
  return outcome.kind === 'created';
}
