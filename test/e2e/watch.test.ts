import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { policyPath } from '../../src/broker/knowledge/index.ts';
import { FileStore } from '../../src/world/store/index.ts';
import { isError, resultText, startStack, type Stack } from './stack-fixture.ts';

/** Liveness bound for a change to travel world → broker → client on a loaded machine; not a performance figure. */
const withinMs = 20_000;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${withinMs} ms`);
    await sleep(250);
  }
}

/**
 * WATCH through the whole system: real worlds stream their changes over QUIC,
 * the broker follows them, and the official MCP SDK client hears of a
 * subscribed document as notifications/resources/updated; the link graph
 * gains a backlink without any crawl call.
 */
describe('world changes reach the broker without polling (WATCH)', () => {
  let stack: Stack;
  let client: Client;
  const publish = async (path: string, body: string, expected = '0') => {
    // Through the broker, as an agent would; the world reports the write on its change feed.
    const result = await client.callTool({
      name: 'mark_publish',
      arguments: { url: `mark://team-a${path}`, body, expected_version: Number(expected) },
    });
    assert.notEqual(result.isError, true, resultText(result));
  };
  before(async () => {
    stack = await startStack({ worlds: ['root', 'team-a'] });
    client = await stack.connect();
    await until('every world watched', async () =>
      ['root', 'team-a'].every((w) => stack.broker.watcher.watching(w)) ? true : undefined,
    );
  });
  after(() => stack.close());

  it('advertises resource subscriptions', () => {
    assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
  });

  it('notifies a subscribed session when the document is published, and stops after unsubscribe', async () => {
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    await client.subscribeResource({ uri: 'mark://team-a/docs/a.md' });
    await publish('/docs/other.md', '# Other\n');
    await publish('/docs/a.md', '# A\n');
    await until('notifications/resources/updated for a.md', async () =>
      updates.includes('mark://team-a/docs/a.md') ? true : undefined,
    );
    assert.ok(!updates.includes('mark://team-a/docs/other.md'), 'only subscribed documents are notified');
    await client.unsubscribeResource({ uri: 'mark://team-a/docs/a.md' });
    const before = updates.length;
    await publish('/docs/a.md', '# A\n\nagain\n', '1');
    await publish('/docs/marker.md', '# Marker\n');
    await client.subscribeResource({ uri: 'mark://team-a/docs/marker.md' });
    await publish('/docs/marker.md', '# Marker 2\n', '1');
    await until('the marker notification', async () =>
      updates.includes('mark://team-a/docs/marker.md') ? true : undefined,
    );
    assert.deepEqual(updates.slice(before), ['mark://team-a/docs/marker.md'], 'nothing after unsubscribe');
  });

  it('refuses subscriptions to unknown worlds and to URIs that are not mark:// documents', async () => {
    await assert.rejects(client.subscribeResource({ uri: 'mark://nowhere/a.md' }));
    await assert.rejects(client.subscribeResource({ uri: 'https://example.com/a.md' }));
  });

  it("takes a document URI in a world's address form, as resources/read does, and notifies it under that URI", async () => {
    // The address mark_worlds shows for team-a: resources/read and every tool accept it in place of the name.
    const uri = `mark://localhost:${stack.worlds.get('team-a')!.port}/docs/alias.md`;
    await publish('/docs/alias.md', '# Alias\n');
    assert.deepEqual((await client.readResource({ uri })).contents, [
      { uri, mimeType: 'text/markdown', text: '# Alias\n' },
    ]);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    await client.subscribeResource({ uri });
    await publish('/docs/alias.md', '# Alias 2\n', '1');
    await until('the notification under the address-form URI', async () => (updates.includes(uri) ? true : undefined));
    await client.unsubscribeResource({ uri });
    await publish('/docs/alias.md', '# Alias 3\n', '2');
    await publish('/docs/alias-marker.md', '# Marker\n');
    await client.subscribeResource({ uri: 'mark://team-a/docs/alias-marker.md' });
    await publish('/docs/alias-marker.md', '# Marker 2\n', '1');
    await until('the marker notification', async () =>
      updates.includes('mark://team-a/docs/alias-marker.md') ? true : undefined,
    );
    assert.equal(updates.filter((update) => update === uri).length, 1, 'nothing after unsubscribe');
  });

  it('puts a new backlink in the graph without any crawl call', async () => {
    const empty = await client.callTool({ name: 'mark_backlinks', arguments: { url: 'mark://team-a/docs/target.md' } });
    assert.match(resultText(empty), /^No backlinks found/);
    await publish('/docs/target.md', '# Target\n');
    await publish('/docs/source.md', '# Source\n\nSee [the target](target.md).\n');
    const found = await until('the backlink', async () => {
      const result = await client.callTool({
        name: 'mark_backlinks',
        arguments: { url: 'mark://team-a/docs/target.md' },
      });
      const data = result.structuredContent as { count: number; backlinks: Array<{ url: string; provenance: string }> };
      return data.count > 0 ? data : undefined;
    });
    assert.deepEqual(
      found.backlinks.map((b) => [b.url, b.provenance]),
      [['mark://team-a/docs/source.md', 'crawl']],
    );
    // Archiving the source takes its links out of the graph the same way.
    const archived = await client.callTool({
      name: 'mark_archive',
      arguments: { url: 'mark://team-a/docs/source.md' },
    });
    assert.notEqual(archived.isError, true, resultText(archived));
    await until('the backlink gone', async () => {
      const result = await client.callTool({
        name: 'mark_backlinks',
        arguments: { url: 'mark://team-a/docs/target.md' },
      });
      return (result.structuredContent as { count: number }).count === 0 ? true : undefined;
    });
  });
});

/**
 * A resync (Mark SPEC WATCH: the world cannot replay what the broker missed, here because it
 * restarted and its change sequence began again) says nothing of what changed, so the broker reads
 * again everything it derived from that world. Before, it kept the world's cached world.md and the
 * hub's publishing policy until their 30 s revalidation: a descriptor and a policy written while the
 * broker was not listening were ignored, and a write the new policy blocks went through.
 */
describe('a resync drops the world.md and publishing policy the broker holds for the world', () => {
  let stack: Stack;
  let client: Client;
  const resynced = new Set<string>();
  const teamATitle = async () => {
    const text = resultText(await client.callTool({ name: 'mark_worlds', arguments: {} }));
    const row = text.split('\n').find((line) => line.startsWith('| team-a |'));
    assert.ok(row, text);
    return row.split(' | ')[4];
  };
  const publishFrontmatter = (path: string) =>
    client.callTool({
      name: 'mark_publish',
      arguments: { url: `mark://team-a${path}`, body: '---\nowner: a\n---\n# Notes\n', expected_version: 0 },
    });
  before(async () => {
    stack = await startStack({ worlds: ['root', 'team-a'] });
    client = await stack.connect();
    // Registered after the broker's own listener (followChanges), so it hears a resync once the broker has acted on it.
    stack.broker.watcher.onNotice((notice) => {
      if (notice.kind === 'resync') resynced.add(notice.world);
    });
    await until('every world watched', async () =>
      ['root', 'team-a'].every((w) => stack.broker.watcher.watching(w)) ? true : undefined,
    );
  });
  after(() => stack.close());

  it('reads them again at once after the resync', async () => {
    // Read and held: team-a has no world.md, the hub no policy.
    assert.equal(await teamATitle(), '');
    const before = await publishFrontmatter('/docs/before.md');
    assert.equal(isError(before), false, resultText(before));
    // Written while the broker was not listening: into each world's store while the world is stopped.
    const offline: Array<[string, string, string]> = [
      ['team-a', '/world.md', '# Team A: identity and access\n\nSign-in and tokens.\n'],
      [
        'root',
        policyPath,
        '# Publishing policy\n\nRules.\n\n| rule | setting | severity |\n|---|---|---|\n| no-frontmatter | | block |\n',
      ],
    ];
    for (const [world, path, body] of offline) {
      await stack.stopWorld(world);
      const store = await FileStore.open(stack.worlds.get(world)!.root);
      await store.publish(path, Buffer.from(body), {}, { expectedVersion: 0 });
      await store.close();
      await stack.restartWorld(world);
    }
    await until('a resync from both worlds', async () =>
      resynced.has('team-a') && resynced.has('root') ? true : undefined,
    );
    assert.equal(await teamATitle(), 'Team A: identity and access');
    const after = await publishFrontmatter('/docs/after.md');
    assert.equal(isError(after), true, resultText(after));
    assert.match(resultText(after), /no-frontmatter/);
  });
});
