import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { resultText, startStack, type Stack } from './stack-fixture.ts';
import { allTools } from '../../src/broker/mcp/tools/index.ts';

type Structured = Record<string, any>;

/**
 * Structured tool results over real MCP: the SDK client lists the tools (and
 * so learns each outputSchema) and then checks every structuredContent against
 * it itself; the text beside it is the reference broker's, unchanged.
 */
describe('structured tool results (outputSchema + structuredContent)', () => {
  let stack: Stack;
  let client: Client;
  // Checked here too, with Ajv's JSON Schema 2020-12 (MCP's default dialect), strict: a schema the SDK
  // client would accept loosely must still be a valid schema, and every answer must fit it.
  const validators = new Map<string, ValidateFunction>();
  before(async () => {
    stack = await startStack({ worlds: ['root'] });
    client = await stack.connect();
    // The SDK client learns each tool's outputSchema from tools/list and then validates every structuredContent.
    const { tools } = await client.listTools();
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const tool of tools) if (tool.outputSchema) validators.set(tool.name, ajv.compile(tool.outputSchema));
  });
  after(() => stack.close());

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, resultText(result));
    assert.ok(result.structuredContent, `${name} answered without structuredContent`);
    const validate = validators.get(name);
    assert.ok(validate, `${name} lists no outputSchema`);
    assert.ok(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`);
    return { text: resultText(result), data: result.structuredContent as Structured };
  };

  it('declares an object outputSchema on every tool', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      allTools({ graph: true }).map((t) => t.name),
    );
    for (const tool of tools) {
      assert.ok(tool.outputSchema, `${tool.name} has no outputSchema`);
      assert.equal(tool.outputSchema.type, 'object', tool.name);
    }
  });

  it('lists schemas without what every one would repeat, and says the address convention once, in the instructions', async () => {
    // Before: a $schema in all 40 schemas, the ±2^53-1 bounds on every integer of an answer, and the
    // "Addresses look like mark://{world}/{path}" sentence in 12 tool descriptions (~13 KB of ~70 KB).
    const { tools } = await client.listTools();
    const listed = JSON.stringify(tools);
    assert.doesNotMatch(listed, /"\$schema"/);
    for (const tool of tools) {
      assert.doesNotMatch(JSON.stringify(tool.outputSchema), new RegExp(`${Number.MAX_SAFE_INTEGER}`), tool.name);
      assert.doesNotMatch(tool.description ?? '', /Addresses look like/, tool.name);
    }
    assert.match(
      client.getInstructions() ?? '',
      /mark:\/\/\{world\}\/\{path\}, where \{world\} is a world name from mark_worlds/,
    );
  });

  it('answers writes, reads, listings, versions with the chain verdict, lookups and worlds as data', async () => {
    const created = await call('mark_publish', {
      url: 'mark://root/docs/a.md',
      body: '# A\n\nfirst\n',
      expected_version: 0,
      metadata: { title: 'Alpha', tags: 'x,y', importance: '0.5' },
    });
    assert.match(created.text, /^status: created\nversion: 1\n/);
    assert.equal(created.data.status, 'created');
    assert.equal(created.data.version, 1);
    assert.equal(created.data.url, 'mark://root/docs/a.md');

    const fetched = await call('mark_fetch', { url: 'mark://root/docs/a.md' });
    assert.equal(fetched.data.mode, 'full');
    assert.equal(fetched.data.body, '# A\n\nfirst\n');
    assert.equal(fetched.data.version, 1);
    assert.equal(fetched.data.metadata.title, 'Alpha');
    assert.ok(fetched.text.endsWith('\n\n# A\n\nfirst\n'));
    const again = await call('mark_fetch', { url: 'mark://root/docs/a.md' });
    assert.equal(again.data.status, 'unchanged');
    assert.equal(again.data.mode, 'unchanged');
    const section = await call('mark_fetch', { url: 'mark://root/docs/a.md#a' });
    assert.equal(section.data.mode, 'section');
    assert.equal(section.data.section, 'a');

    const appended = await call('mark_append', { url: 'mark://root/docs/a.md', body: 'more\n' });
    assert.equal(appended.data.version, 2);
    const stale = await call('mark_publish', {
      url: 'mark://root/docs/a.md',
      body: '# A\n\nfirst, edited\n',
      expected_version: 1,
    });
    assert.equal(stale.data.status, 'merge-candidate');
    assert.equal(stale.data.merge.publish_at_version, 2);
    assert.equal(stale.data.merge.your_version, 1);
    assert.equal(typeof stale.data.merge.body, 'string');

    const listed = await call('mark_list', { url: 'mark://root/docs/' });
    assert.deepEqual(listed.data.entries, [{ name: 'a.md', kind: 'document', url: 'mark://root/docs/a.md' }]);
    assert.equal(listed.data.complete, true);
    const top = await call('mark_list', { url: 'mark://root/' });
    assert.ok(top.data.entries.some((e: Structured) => e.kind === 'directory' && e.url === 'mark://root/docs/'));

    const versions = await call('mark_versions', { url: 'mark://root/docs/a.md' });
    assert.equal(versions.data.chain_valid, true);
    assert.equal(versions.data.current, 2);
    assert.deepEqual(
      versions.data.versions.map((v: Structured) => [v.version, v.url]),
      [
        [2, 'mark://root/docs/a.md/v2'],
        [1, 'mark://root/docs/a.md/v1'],
      ],
    );

    const found = await call('mark_lookup', { url: 'mark://root/', query: '*' });
    assert.equal(found.data.matches, 1);
    assert.deepEqual(found.data.rows, [
      { url: 'mark://root/docs/a.md', path: '/docs/a.md', importance: 0.5, title: 'Alpha', tags: ['x', 'y'] },
    ]);

    const worlds = await call('mark_worlds');
    assert.equal(worlds.data.count, 1);
    assert.equal(worlds.data.worlds[0].name, 'root');
    assert.equal(worlds.data.worlds[0].writable, true);

    const archived = await call('mark_archive', { url: 'mark://root/docs/a.md' });
    assert.equal(archived.data.url, 'mark://root/docs/a.md');
    const gone = await call('mark_fetch', { url: 'mark://root/docs/a.md' });
    assert.equal(gone.data.status, 'archived');
  });

  it('answers discovery, search, lookups across worlds, hash indexes, the link graph and the doctor as data', async () => {
    const manifest = await call('mark_publish', {
      url: 'mark://root/.well-known/agent-manifest.md',
      body: '# Root\n\nThe hub.\n',
      expected_version: 0,
    });
    assert.equal(manifest.data.status, 'created');
    await call('mark_publish', {
      url: 'mark://root/guide/start.md',
      body: '# Start here\n\nRead the [deploy runbook](runbook.md) before deploying.\n\n## Next\n\nMore.\n',
      expected_version: 0,
      metadata: { title: 'Start here', tags: 'guide' },
    });
    await call('mark_publish', {
      url: 'mark://root/guide/runbook.md',
      body: '# Deploy runbook\n\nHow to deploy the service safely.\n',
      expected_version: 0,
      metadata: { title: 'Deploy runbook', tags: 'runbook,deploy' },
    });

    const discovered = await call('mark_discover', { url: 'mark://root/' });
    assert.equal(discovered.data.url, 'mark://root/.well-known/agent-manifest.md');
    assert.equal(discovered.data.body, '# Root\n\nThe hub.\n');

    const crawled = await call('mark_graph', { url: 'mark://root/guide/start.md', depth: 1 });
    assert.match(crawled.text, /^Crawled \d+ nodes, \d+ edges from /);
    assert.equal(crawled.data.edge_count, crawled.data.edges.length);
    const edge = crawled.data.edges.find((e: Structured) => e.to === 'mark://root/guide/runbook.md');
    assert.deepEqual(edge, {
      from: 'mark://root/guide/start.md',
      to: 'mark://root/guide/runbook.md',
      rel: '',
      label: 'deploy runbook',
      anchor: 'start-here',
      count: 1,
      provenance: 'crawl',
    });
    const backlinks = await call('mark_backlinks', { url: 'mark://root/guide/runbook.md' });
    assert.equal(backlinks.data.count, 1);
    assert.equal(backlinks.data.backlinks[0].url, 'mark://root/guide/start.md');
    assert.equal(backlinks.data.backlinks[0].provenance, 'crawl');
    const none = await call('mark_backlinks', { url: 'mark://root/guide/start.md' });
    assert.deepEqual(none.data.backlinks, []);

    const explored = await call('mark_explore', { url: 'mark://root/guide/start.md' });
    assert.equal(explored.data.mode, 'card');
    assert.deepEqual(
      explored.data.outline.map((h: Structured) => [h.level, h.anchor]),
      [
        [1, 'start-here'],
        [2, 'next'],
      ],
    );
    assert.deepEqual(explored.data.links, [
      { text: 'deploy runbook', href: 'runbook.md', url: 'mark://root/guide/runbook.md' },
    ]);
    assert.deepEqual(explored.data.siblings, [
      { name: 'runbook.md', kind: 'document', url: 'mark://root/guide/runbook.md' },
    ]);
    assert.equal(explored.data.siblings_complete, true);
    const intoRunbook = await call('mark_explore', { url: 'mark://root/guide/runbook.md' });
    assert.equal(intoRunbook.data.backlink_count, 1);
    assert.equal(intoRunbook.data.backlinks[0].url, 'mark://root/guide/start.md');

    const exported = await call('mark_graph_export');
    assert.ok(exported.text.startsWith('# '));
    assert.ok(exported.data.nodes.some((n: Structured) => n.url === 'mark://root/guide/start.md' && n.links === 1));
    // Tagged, so the doctor's untagged check below does not name it (the hub's /graph.md is the crawl's alone).
    const published = await call('mark_graph_publish', {
      url: 'mark://root/graphs/graph.md',
      expected_version: 0,
      metadata: { tags: 'generated' },
    });
    assert.equal(published.data.status, 'created');
    assert.equal(published.data.url, 'mark://root/graphs/graph.md');
    assert.equal(published.data.edge_count, exported.data.edge_count);

    const everywhere = await call('mark_lookup_all', { query: 'runbook' });
    assert.equal(everywhere.data.status, 'ok');
    assert.equal(everywhere.data.match, 'catalog');
    assert.deepEqual(everywhere.data.failures, []);
    assert.equal(everywhere.data.rows[0].url, 'mark://root/guide/runbook.md');
    assert.equal(everywhere.data.rows[0].world, 'root');
    assert.deepEqual(everywhere.data.rows[0].tags, ['runbook', 'deploy']);
    const bodies = await call('mark_lookup_all', { query: 'deploy', match: 'body' });
    assert.equal(bodies.data.match, 'body');
    assert.ok(bodies.data.rows.length > 0);
    assert.ok(bodies.data.rows.every((r: Structured) => typeof r.snippet === 'string'));

    const searched = await call('mark_search', { query: 'how do I deploy safely?' });
    assert.equal(searched.data.status, 'ok');
    assert.equal(searched.data.matches, searched.data.hits.length);
    assert.match(searched.data.hits[0].url, /^mark:\/\/root\/guide\/runbook\.md#/);
    assert.equal(typeof searched.data.hits[0].score, 'number');
    const nothing = await call('mark_search', { query: 'zzqx wvvy' });
    assert.deepEqual(nothing.data.hits, []);

    const indexed = await call('mark_index', { source: 'mark://root/guide/', target: 'mark://root/index/root.md' });
    assert.equal(indexed.data.status, 'created');
    assert.equal(indexed.data.documents, 2);
    const dry = await call('mark_index', { source: 'mark://root/guide/', target: 'mark://x/i.md', dry_run: true });
    assert.equal(dry.data.status, 'dry-run');
    assert.match(dry.data.index, /^# Content Index\n/);
    const runbook = indexed.data.entries.find((e: Structured) => e.path === '/guide/runbook.md');
    const resolved = await call('mark_resolve', { hash: runbook.hash, index: 'mark://root/index/root.md' });
    assert.equal(resolved.data.hash, runbook.hash);
    assert.equal(resolved.data.server, 'mark://root');
    assert.equal(resolved.data.body, '# Deploy runbook\n\nHow to deploy the service safely.\n');

    await call('mark_publish', { url: 'mark://root/notes.md', body: '# Notes\n', expected_version: 0 });
    const doctor = await call('mark_doctor', { kinds: 'untagged' });
    assert.equal(doctor.data.total, doctor.data.findings.length);
    assert.ok(doctor.data.findings.every((f: Structured) => f.kind === 'untagged'));
    assert.deepEqual(doctor.data.findings, [{ kind: 'untagged', url: 'mark://root/notes.md' }]);
    assert.match(doctor.text, /\| untagged \| mark:\/\/root\/notes\.md \|/);
  });
});
