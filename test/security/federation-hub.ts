import assert from 'node:assert/strict';
import { runFederationCrawl, type FederationCrawlSummary } from '../../src/broker/graph/federation/federation-crawl.ts';
import { parseExport } from '../../src/broker/graph/graph-export.ts';
import { TestGateway, writerIdentity } from '../broker/graph/test-gateway.ts';
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

/** Team B's notes link to these: the other world's links an export attack must leave whole. */
const teamBLinks = Array.from({ length: 30 }, (_, i) => `mark://team-b/topics/${i}.md`);

// Mark's body limit (docs/security.md, "Limits and defaults"), written out so the tests state it.
const maxBodyBytes = 1_048_576;

/**
 * The worlds of the export attack tests (federation-export-share.test.ts,
 * federation-export-rows.test.ts): the hub `root` links to team-b's notes,
 * which link to teamBLinks; `floodTeamA` writes the attack into team-a, and
 * then team-a's /small.md links to team-b's notes. The gateway is closed if
 * the setup fails, as the caller has no gateway to close then.
 */
export async function startFloodedFederation(
  floodTeamA: (gateway: TestGateway) => Promise<void>,
): Promise<TestGateway> {
  const gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-a' }, { name: 'team-b' }]);
  try {
    gateway.writers.add(writerIdentity.email);
    await gateway.publish('root', '/index.md', '# Hub\n\n[Team B](mark://team-b/notes.md)\n');
    await gateway.publish(
      'team-b',
      '/notes.md',
      `# Team B notes\n\n${teamBLinks.map((to) => `[t](${to})`).join(' ')}\n`,
    );
    await floodTeamA(gateway);
    await gateway.publish('team-a', '/small.md', '# Small\n\n[Notes](mark://team-b/notes.md)\n');
    return gateway;
  } catch (error) {
    await gateway.close();
    throw error;
  }
}

/**
 * Crawls the worlds of startFloodedFederation and checks what the attack must
 * not take from the other worlds: /graph.md is published, within Mark's body
 * limit, with root's and team-b's links whole. Returns what the crawl left for
 * the test's own checks on team-a.
 */
export async function crawlPastFlood(hub: ReturnType<typeof federationHub>) {
  const summary = await hub.crawl();
  const outcome = hub.graphOutcome(summary);
  assert.equal(outcome?.outcome, 'published', JSON.stringify(outcome));
  const text = await hub.hubGraphText();
  assert.ok(Buffer.byteLength(text) <= maxBodyBytes);
  const graph = parseExport(text);
  const linksFrom = (url: string) => graph.edges.filter((e) => e.from === url).map((e) => e.to);
  assert.deepEqual(linksFrom('mark://team-b/notes.md').sort(), [...teamBLinks].sort());
  assert.deepEqual(linksFrom('mark://root/index.md'), ['mark://team-b/notes.md']);
  return { summary, outcome, text, graph, linksFrom };
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
  const { partial } = parseExport(text);
  for (const [world, cut] of [
    ...worlds.cut.map((w) => [w, true] as const),
    ...worlds.whole.map((w) => [w, false] as const),
  ]) {
    assert.equal(partial.has(world), cut, `${world} is ${cut ? '' : 'not '}named partial`);
    const bytes = worldRowBytes(text, world);
    assert.ok(bytes <= share, `${world} publishes ${bytes} bytes of rows, within the share of ${share}`);
  }
}
