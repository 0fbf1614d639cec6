import { runFederationCrawl, type FederationCrawlSummary } from '../../src/broker/graph/federation/federation-crawl.ts';
import { type TestGateway, writerIdentity } from '../broker/graph/test-gateway.ts';

/**
 * The federation crawl into the hub `root` at a fixed time, and what it left
 * there: shared by the federation attack tests (federation-link-flood.test.ts,
 * federation-export-share.test.ts).
 */
export function federationHub(gateway: () => TestGateway) {
  return {
    crawl: () =>
      runFederationCrawl({
        gateway: gateway(),
        hub: 'root',
        now: () => new Date('2026-03-01T00:00:00Z'),
        identity: writerIdentity,
      }),
    hubGraphText: async () =>
      Buffer.from((await gateway().read('root', { verb: 'FETCH', path: '/graph.md' })).body).toString('utf8'),
    graphOutcome: (summary: FederationCrawlSummary) => summary.published.find((p) => p.path === '/graph.md'),
  };
}
