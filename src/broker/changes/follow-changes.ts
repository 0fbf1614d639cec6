import type { BrokerGraph } from '../graph/index.ts';
import { seedPath } from '../graph/index.ts';
import { qualifiedWorldUrl } from '../mcp/go-format.ts';
import type { KnowledgeServices } from '../mcp/definitions.ts';
import type { ResourceSubscriptions } from './resource-subscriptions.ts';
import type { ChangeNotice, WorldWatcher } from './world-watcher.ts';

/**
 * What the broker keeps fresh from the changes worlds report, instead of
 * waiting for a poll: the link graph (the changed document is read again, so
 * its links and the backlinks they make appear at once; a changed
 * `/graph.md` is seeded again), the cached world documents (world.md, the
 * publishing standard), and the MCP sessions subscribed to the document.
 * A resync, which cannot say what changed, forgets the world's cached world
 * documents, reads its seed again, reads again every document of it the graph
 * read itself (BrokerGraph.resynced) and tells every subscriber in it. Search
 * statistics need nothing: they are gathered per query.
 */
export function followChanges(
  watcher: WorldWatcher,
  targets: {
    graph: BrokerGraph;
    knowledge?: KnowledgeServices;
    subscriptions: ResourceSubscriptions;
    log?: { warn(fields: Record<string, unknown>, message: string): void };
  },
): () => void {
  const { graph, knowledge, subscriptions, log } = targets;
  const apply = (notice: ChangeNotice) => {
    if (notice.kind === 'resync') {
      knowledge?.documents.invalidateWorld(notice.world);
      graph.seeder.forget(notice.world);
      graph.resynced(notice.world);
      subscriptions.worldChanged(notice.world);
      return;
    }
    const { world, path } = notice;
    knowledge?.documents.invalidate(world, path);
    subscriptions.changed(world, path);
    const settle = (work: Promise<void>) =>
      void work.catch((error) => log?.warn({ world, path, err: String(error) }, 'graph refresh after a change failed'));
    if (path === seedPath) {
      graph.seeder.forget(world);
      settle(graph.seeder.seedWorld(world));
    } else settle(graph.refresh(qualifiedWorldUrl(world, path)));
  };
  return watcher.onNotice(apply);
}
