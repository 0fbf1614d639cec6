import assert from 'node:assert/strict';
import { runFederationCrawl, type FederationCrawlSummary } from '../../src/broker/graph/federation/federation-crawl.ts';
import { partialWorlds } from '../../src/broker/graph/graph-export.ts';
import { type TestGateway, writerIdentity } from '../broker/graph/test-gateway.ts';
import { worldRowBytes } from '../support/export-rows.ts';

/**
 * The federation crawl into the hub `root` at a fixed time, and what it left
 * there: shared by the federation attack tests (federation-link-flood.test.ts,
 * federation-export-share.test.ts, federation-export-rows.test.ts).
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
    graphOutcome: graphOutcomeOf,
  };
}

function graphOutcomeOf(summary: FederationCrawlSummary) {
  return summary.published.find((p) => p.path === '/graph.md');
}

/**
 * The bytes of rows each world was held to in the published /graph.md, as the
 * summary tells the operator (shareDetail in
 * src/broker/graph/federation/export-share.ts), or null when no world was cut.
 */
function graphShareOf(summary: FederationCrawlSummary): number | null {
  const stated = /each world keeps at most (\d+) bytes of \/graph\.md rows/.exec(graphOutcomeOf(summary)?.detail ?? '');
  return stated === null ? null : Number(stated[1]);
}

/**
 * What the share means in a published /graph.md (`text`): the summary states
 * it in bytes of rows, each world cut is named in `## Partial` and publishes
 * rows within it, and each world published whole is not named and fits it.
 */
export function assertWithinShare(
  summary: FederationCrawlSummary,
  text: string,
  worlds: { cut: readonly string[]; whole: readonly string[] },
): void {
  const share = graphShareOf(summary);
  assert.ok(share !== null, 'the summary states the share');
  const partial = partialWorlds(text);
  for (const [world, cut] of [
    ...worlds.cut.map((w) => [w, true] as const),
    ...worlds.whole.map((w) => [w, false] as const),
  ]) {
    assert.equal(partial.has(world), cut, `${world} is ${cut ? '' : 'not '}named partial`);
    const bytes = worldRowBytes(text, world);
    assert.ok(bytes <= share, `${world} publishes ${bytes} bytes of rows, within the share of ${share}`);
  }
}
