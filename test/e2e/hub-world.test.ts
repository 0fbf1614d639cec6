/**
 * A hub world that is not `root` (broker config `hub`, chart `crawl.hub`).
 * Before the fix the broker had no hub setting: with the federation crawl
 * publishing into world `main` the broker still seeded from `root`, so a cold
 * broker answered 0 backlinks, and the publishing policy on `main` was never
 * read. This test failed then (the config key did not exist); it checks that
 * the one setting reaches the graph seeding, the publishing standard and the
 * knowledge resources alike.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runFederationCrawl } from '../../src/broker/graph/index.ts';
import { isError, resultText, startStack, type Stack } from './stack-fixture.ts';

const policy =
  '# Publishing policy\n\n| rule | setting | severity |\n|------|---------|----------|\n| h1-first | | block |\n';

describe('a hub world named by the broker config (hub: main)', () => {
  let stack: Stack;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const publish = (url: string, body: string) => call('mark_publish', { url, body, expected_version: 0 });

  before(async () => {
    // No world is called root: every hub read must go to main.
    stack = await startStack({ worlds: ['main', 'team-a'], brokerConfig: { hub: 'main' } });
    client = await stack.connect();
    for (const [url, body] of [
      ['mark://team-a/index.md', '# A\n\n[b](b.md)\n'],
      ['mark://team-a/b.md', '# B\n'],
    ] as const) {
      const result = await publish(url, body);
      assert.equal(isError(result), false, resultText(result));
    }
  });
  after(() => stack.close());

  it('seeds a restarted broker from the federation crawl published to that hub', async () => {
    assert.equal(stack.config.hub, 'main');
    const summary = await runFederationCrawl({ gateway: stack.broker.gateway, hub: 'main', now: () => new Date() });
    assert.ok(
      summary.published.some((p) => p.path === '/graph.md' && p.outcome === 'published'),
      JSON.stringify(summary.published),
    );
    await stack.restartBroker();
    client = await stack.connect();
    const backlinks = resultText(await call('mark_backlinks', { url: 'mark://team-a/b.md' }));
    assert.match(
      backlinks,
      /- mark:\/\/team-a\/index\.md .*\(seeded from the hub's federation crawl, mark:\/\/main\/graph\.md\)/,
    );
  });

  it("enforces that hub's publishing policy and lists it as a resource", async () => {
    const standard = await publish('mark://main/.well-known/demarkus/policy.md', policy);
    assert.equal(isError(standard), false, resultText(standard));
    const refused = await publish('mark://team-a/notes.md', 'no heading first\n');
    assert.equal(isError(refused), true, resultText(refused));
    assert.match(
      resultText(refused),
      /^publish refused by the publishing policy \(mark:\/\/main\/\.well-known\/demarkus\/policy\.md\):\n- h1-first/,
    );
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    assert.ok(uris.includes('mark://main/.well-known/demarkus/policy.md'), uris.join('\n'));
  });
});
