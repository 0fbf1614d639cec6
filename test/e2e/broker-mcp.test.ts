import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { goReferenceToolNames } from '../support/reference-tools.ts';
import { isError, resultText, startStack, type Stack } from './stack-fixture.ts';

const sha = (text: string) => `sha256-${createHash('sha256').update(text).digest('hex')}`;

/**
 * The product end to end: the official MCP SDK client over real HTTP to the
 * broker, which reaches real world servers over real QUIC.
 */
describe('broker MCP gateway end to end', () => {
  let stack: Stack;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const text = async (name: string, args: Record<string, unknown>) => resultText(await call(name, args));

  before(async () => {
    stack = await startStack();
    client = await stack.connect();
  });
  after(() => stack.close());

  it('lists every gateway tool', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of goReferenceToolNames) {
      assert.ok(names.includes(name), `${name} listed`);
    }
    assert.ok(
      tools.every((t) => (t.description ?? '').length > 20),
      'every tool explains itself',
    );
  });

  it('lists the worlds with their dial address and writability', async () => {
    const out = await text('mark_worlds', {});
    assert.match(out, /^status: ok\ncount: 3\n/);
    assert.match(out, /\| team-a \| {2}\| mark:\/\/localhost:\d+ \| yes \|/);
  });

  it('publishes through the broker write token, recording the caller as agent', async () => {
    const result = await call('mark_publish', {
      url: 'mark://team-a/docs/auth.md',
      body: '# Auth design\n\nTokens rotate.\n\n## Sessions\n\nShort lived.\n',
      expected_version: 0,
      metadata: { tags: 'auth, design', importance: 0.8 },
    });
    assert.equal(isError(result), false, resultText(result));
    assert.match(resultText(result), /^status: created\nversion: 1\n/);
    const fetched = await text('mark_fetch', { url: 'mark://team-a/docs/auth.md' });
    assert.match(fetched, /^status: ok\nversion: 1\nmodified: .+\netag: [0-9a-f]{64}\n/);
    assert.match(fetched, /agent: alice@example\.com/);
    assert.match(fetched, /\n\n# Auth design\n/);
  });

  it('answers a repeated fetch in one session with an unchanged notice, and force re-reads', async () => {
    const again = await text('mark_fetch', { url: 'mark://team-a/docs/auth.md' });
    assert.match(again, /^status: unchanged\nversion: 1\n/);
    const forced = await text('mark_fetch', { url: 'mark://team-a/docs/auth.md', force: true });
    assert.match(forced, /^status: ok\n/);
  });

  it('slices a section by #anchor and names the anchors when one is missing', async () => {
    assert.match(
      await text('mark_fetch', { url: 'mark://team-a/docs/auth.md#sessions' }),
      /section: #sessions[\s\S]*## Sessions\n\nShort lived\.\n$/,
    );
    const missing = await call('mark_fetch', { url: 'mark://team-a/docs/auth.md#nope' });
    assert.equal(isError(missing), true);
    assert.match(resultText(missing), /available anchors: auth-design, sessions/);
  });

  it('offers a merge candidate on a stale publish instead of overwriting', async () => {
    await call('mark_publish', {
      url: 'mark://team-a/docs/auth.md',
      body: '# Auth design\n\nTokens rotate daily.\n\n## Sessions\n\nShort lived.\n',
      expected_version: 1,
    });
    const stale = await text('mark_publish', {
      url: 'mark://team-a/docs/auth.md',
      body: '# Auth design\n\nTokens rotate.\n\n## Sessions\n\nVery short lived.\n',
      expected_version: 1,
    });
    assert.match(
      stale,
      /^status: merge-candidate\nyour-version: 1\ncurrent-version: 2\npublish-at-version: 2\nhas-markers: (true|false)\n\n/,
    );
    const failed = await text('mark_publish', {
      url: 'mark://team-a/docs/auth.md',
      body: '# X\n',
      expected_version: 1,
      on_conflict: 'fail',
    });
    assert.match(failed, /^status: conflict\n/);
  });

  it('appends at the current version without being told it', async () => {
    assert.match(
      await text('mark_append', { url: 'mark://team-a/docs/auth.md', body: '\n## Audit\n\nEvery write is logged.\n' }),
      /^status: created\nversion: 3\n/,
    );
    assert.match(
      await text('mark_versions', { url: 'mark://team-a/docs/auth.md' }),
      /^status: ok\ntotal: 3\ncurrent: 3\nchain-valid: true\n/,
    );
  });

  it('looks up in one world and across all worlds', async () => {
    await call('mark_publish', {
      url: 'mark://team-b/docs/search.md',
      body: '# Search\n\nRanking.\n',
      expected_version: 0,
      metadata: { tags: 'auth, search' },
    });
    // v2 and v3 were published without metadata, so the title alone matches now, at default importance.
    assert.match(
      await text('mark_lookup', { url: 'mark://team-a/', query: 'auth' }),
      /^status: ok\nmatches: 1\n[\s\S]*\| mark:\/\/team-a\/docs\/auth\.md \| 0\.50 \| Auth design \|/,
    );
    const all = await text('mark_lookup_all', { query: 'auth' });
    assert.match(all, /^status: ok\nworlds: 3\nsucceeded: 3\nfailed: 0\nmatches: 2\n/);
    assert.match(all, /\| mark:\/\/team-a\/docs\/auth\.md \| 0\.50 \|/);
    assert.match(all, /\| mark:\/\/team-b\/docs\/search\.md \|/);
  });

  it('lists, explores and discovers', async () => {
    assert.match(await text('mark_list', { url: 'mark://team-a/docs' }), /\[auth\.md\]\(auth\.md\)/);
    const card = await text('mark_explore', { url: 'mark://team-a/docs/auth.md' });
    assert.match(card, /## Outline\n/);
    assert.match(card, /## Backlinks/);
    assert.match(await text('mark_discover', { url: 'mark://root/' }), /## Capabilities/);
  });

  it('indexes a world by content hash and resolves a hash through the index', async () => {
    const indexed = await text('mark_index', { source: 'mark://team-b/', target: 'mark://root/index/team-b.md' });
    assert.match(indexed, /Indexed 1 documents from mark:\/\/team-b/);
    const resolved = await text('mark_resolve', {
      hash: sha('# Search\n\nRanking.\n'),
      index: 'mark://root/index/team-b.md',
    });
    assert.match(resolved, /^status: ok\n/);
    assert.match(resolved, /content-hash: sha256-/);
  });

  it('archives', async () => {
    assert.match(await text('mark_archive', { url: 'mark://team-b/docs/search.md' }), /^status: ok\n/);
    assert.match(await text('mark_fetch', { url: 'mark://team-b/docs/search.md' }), /^status: archived\n/);
  });

  it('reports bad URLs and unknown worlds as tool errors, world statuses as results', async () => {
    const unknown = await call('mark_fetch', { url: 'mark://nowhere/a.md' });
    assert.equal(isError(unknown), true);
    assert.match(resultText(unknown), /nowhere/);
    const port = await call('mark_fetch', { url: 'mark://team-a:6309/a.md' });
    assert.equal(isError(port), true);
    assert.match(resultText(port), /must not carry a port/);
    const missing = await call('mark_fetch', { url: 'mark://team-a/missing.md' });
    assert.equal(isError(missing), false);
    assert.match(resultText(missing), /^status: not-found\n/);
  });

  it('serves the document resource template with anchors, the per-world index resources and the prompts', async () => {
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'mark://team-a/index.md'));
    const read = await client.readResource({ uri: 'mark://team-a/docs/auth.md#audit' });
    const first = read.contents[0] as { text: string; mimeType: string };
    assert.equal(first.mimeType, 'text/markdown');
    assert.match(first.text, /^## Audit\n/);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['orient', 'publish', 'recall', 'whats-new']);
    const orient = await client.getPrompt({ name: 'orient', arguments: { url: 'mark://team-a/docs/auth.md' } });
    assert.match(JSON.stringify(orient.messages), /mark_explore/);
  });

  it('serves a stateless request without a session', async () => {
    const response = await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await stack.token()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'mark_worlds', arguments: {} },
      }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('mcp-session-id'), null);
    assert.match(await response.text(), /count: 3/);
  });

  it('refuses a request without a token with a 401 that points at the resource metadata', async () => {
    const response = await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 401);
    assert.match(
      response.headers.get('www-authenticate') ?? '',
      /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', stack.mcpUrl));
    assert.equal(((await metadata.json()) as { resource: string }).resource, stack.mcpUrl.href);
  });

  it('keeps other worlds answering while one is down, fails fast on it, and uses it again once it is back', async () => {
    await stack.stopWorld('team-b');
    const down = await call('mark_fetch', { url: 'mark://team-b/index.md' });
    assert.equal(isError(down), true);
    assert.match(resultText(down), /team-b/);
    const fast = await call('mark_fetch', { url: 'mark://team-b/index.md' });
    assert.equal(isError(fast), true);
    assert.match(await text('mark_fetch', { url: 'mark://team-a/docs/auth.md', force: true }), /^status: ok\n/);
    const partial = await text('mark_lookup_all', { query: 'auth' });
    assert.match(partial, /^status: partial\n/);
    assert.match(partial, /## World failures/);
    await stack.restartWorld('team-b');
    let answer = '';
    for (let attempt = 0; attempt < 40 && !answer.startsWith('status: not-found'); attempt++) {
      answer = await text('mark_fetch', { url: 'mark://team-b/index.md' });
      if (!answer.startsWith('status: not-found')) await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(answer, /^status: not-found\n/);
  });

  it('exposes per-tool and per-world series on /metrics and is ready', async () => {
    const base = `http://127.0.0.1:${stack.broker.management.port}`;
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /tool="mark_fetch"/);
    assert.match(metrics, /world="team-a"/);
  });

  it('keeps /readyz, /healthz and /metrics off the public issuer listener, which still serves its JWKS', async () => {
    const issuer = `http://127.0.0.1:${stack.broker.issuer.port}`;
    assert.notEqual(stack.broker.issuer.port, stack.broker.management.port);
    for (const path of ['/readyz', '/healthz', '/metrics']) {
      const response = await fetch(`${issuer}${path}`);
      assert.equal(response.status, 404, path);
      assert.doesNotMatch(await response.text(), /team-a/, path);
    }
    assert.equal((await fetch(`${issuer}/.well-known/jwks.json`)).status, 200);
  });
});
