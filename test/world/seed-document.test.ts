import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorld, type World } from '../../src/world/world.ts';
import { seedDocumentOnce } from '../../src/world/seed-document.ts';

describe('seeding a document on first start', () => {
  let dir: string;
  let world: World;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-seed-'));
    world = await openWorld({ root: dir });
  });
  after(async () => {
    await world.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes once, and never over a document the owners changed or archived', async () => {
    assert.equal(await seedDocumentOnce(world, '/world.md', '# Seed\n', {}), true);
    assert.equal(await seedDocumentOnce(world, '/world.md', '# Seed again\n', {}), false);
    await world.context.store.publish('/world.md', Buffer.from('# Edited\n'), {}, { expectedVersion: 1 });
    await world.context.store.archive('/world.md');
    assert.equal(await seedDocumentOnce(world, '/world.md', '# Seed\n', {}), false);
    const history = await world.context.store.history('/world.md');
    assert.equal(history?.versions.length, 2);
  });
});
