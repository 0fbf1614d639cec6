import type { Backlink, GraphService } from '../mcp/definitions.ts';
import { edgeAnnotation } from './go-format.ts';
import type { BrokerGraph } from './graph-service.ts';

/** The graph as mark_explore sees it: seed first (throttled), then the annotated backlinks. */
export function backlinkService(graph: BrokerGraph): GraphService {
  return {
    async backlinks(url: string, signal: AbortSignal): Promise<readonly Backlink[]> {
      await graph.seed(signal);
      return graph.backlinks(url).map((entry) => ({
        url: entry.url,
        title: entry.title,
        annotation: edgeAnnotation(entry.rel, entry.label, entry.anchor, entry.count),
      }));
    },
  };
}
