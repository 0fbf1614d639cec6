import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isError, resultText, startStack, type Stack } from '../../e2e/stack-fixture.ts';
import { runCli } from '../../cli/cli-process.ts';

/** `demarkus-broker search` as a process, against a real broker (MCP over HTTP) and against one world directly. */
describe('demarkus-broker search', () => {
  let stack: Stack;
  let client: Client;
  let token: string;
  before(async () => {
    stack = await startStack({ worlds: ['team-a', 'team-b'] });
    client = await stack.connect();
    token = await stack.token();
    const publish = async (url: string, body: string) => {
      const result = await client.callTool({ name: 'mark_publish', arguments: { url, body, expected_version: 0 } });
      assert.equal(isError(result), false, resultText(result));
    };
    await publish(
      'mark://team-a/ops/rotation.md',
      '# Key rotation\n\nSigning keys rotate every night.\n\n## Audit\n\nEach rotation is logged.\n',
    );
    await publish('mark://team-b/dev/deploy.md', '# Deploy\n\nThe deploy job ships the build at night.\n');
  });
  after(() => stack.close());
  const broker = (args: string[]) =>
    runCli(['search', ...args, '--url', stack.mcpUrl.href], { env: { DEMARKUS_BROKER_TOKEN: token } });

  it('prints exactly an array of {uri, title, score, snippet} with --json, best first', async () => {
    const { code, stdout } = await broker(['how', 'do', 'keys', 'rotate', 'at', 'night?', '--json']);
    assert.equal(code, 0);
    const hits = JSON.parse(stdout) as Record<string, unknown>[];
    assert.ok(Array.isArray(hits) && hits.length === 2);
    for (const hit of hits) {
      assert.deepEqual(Object.keys(hit), ['uri', 'title', 'score', 'snippet']);
      assert.equal(typeof hit.score, 'number');
    }
    assert.deepEqual(hits[0], {
      uri: 'mark://team-a/ops/rotation.md#key-rotation',
      title: 'Key rotation › Key rotation',
      score: hits[0]!.score,
      snippet: 'Signing keys rotate every night.',
    });
    assert.ok((hits[0]!.score as number) > (hits[1]!.score as number));
  });

  it('prints a readable ranked list by default, and searches one world with --world', async () => {
    const { code, stdout } = await broker(['night', '--world', 'team-b']);
    assert.equal(code, 0);
    assert.match(
      stdout,
      /^ 1\. Deploy › Deploy {2}· {2}score \d+\.\d\d\n {4}mark:\/\/team-b\/dev\/deploy\.md#deploy\n {4}The deploy job ships the build at night\.\n$/,
    );
  });

  it('never dead-ends: an empty answer is [] on stdout with the nearest titles and how to browse on stderr', async () => {
    const { code, stdout, stderr } = await broker(['rotatoin', '--json']);
    assert.equal(code, 0);
    assert.equal(stdout, '[]\n');
    assert.match(
      stderr,
      /^no document matches "rotatoin"\nnearest titles:\n {2}Key rotation {2}mark:\/\/team-a\/ops\/rotation\.md\nbrowse all: /,
    );
    const readable = await broker(['rotatoin']);
    assert.match(readable.stdout, /^no document matches "rotatoin"\nnearest titles:\n/);
  });

  it('searches one world directly with --direct, without the broker', async () => {
    const port = stack.worlds.get('team-a')!.port;
    const { code, stdout, stderr } = await runCli([
      'search',
      'rotation',
      'logged',
      '--direct',
      `mark://localhost:${port}/`,
      '--ca',
      join(stack.dir, 'ca.pem'),
      '--json',
    ]);
    assert.equal(code, 0, stderr);
    const hits = JSON.parse(stdout) as { uri: string; score: number }[];
    assert.equal(hits[0]?.uri, `mark://localhost:${port}/ops/rotation.md#audit`);
    assert.equal(typeof hits[0]?.score, 'number');
  });

  it('verifies the world under --server-name, with --direct as with mark (src/cli/direct-world.ts)', async () => {
    // The test certificate names loopback only: the same world, verified under another name, is refused.
    const port = stack.worlds.get('team-a')!.port;
    const trust = ['--ca', join(stack.dir, 'ca.pem')];
    const direct = (serverName: string) =>
      runCli(['search', 'rotation', '--direct', `mark://127.0.0.1:${port}/`, ...trust, '--server-name', serverName]);
    const mark = (serverName: string) =>
      runCli(['mark', 'fetch', `mark://127.0.0.1:${port}/ops/rotation.md`, ...trust, '--server-name', serverName]);
    for (const run of [direct, mark]) {
      const named = await run('localhost');
      assert.equal(named.code, 0, named.stderr);
      const elsewhere = await run('elsewhere.example');
      assert.equal(elsewhere.code, 1, elsewhere.stdout);
      assert.match(elsewhere.stderr, /certificate|TLS|handshake/i);
    }
  });

  it('refuses with --direct, as a usage error, a question of more than 32 words that keeps no searchable word', async () => {
    // Reduced to its search terms the question was empty, and the world answered
    // "query must be at least 2 characters" (exit 1), which the question was not.
    const port = stack.worlds.get('team-a')!.port;
    const punctuation = Array.from({ length: 40 }, (_, i) => '!'.repeat(i + 2));
    const { code, stderr } = await runCli([
      'search',
      ...punctuation,
      '--direct',
      `mark://localhost:${port}/`,
      '--ca',
      join(stack.dir, 'ca.pem'),
    ]);
    assert.equal(code, 2, stderr);
    assert.match(
      stderr,
      /query has more than 32 distinct words, more than a world accepts, and none of them is searchable/,
    );
  });

  it('measures the question as the worlds do, so one letter between U+0085 is a usage error, not a world failure', async () => {
    // JavaScript's trim() keeps U+0085 and Go's strings.TrimSpace removes it: the CLI took "\u0085x\u0085" as
    // 3 characters and every world answered "query must be at least 2 characters" behind a search failure (exit 1).
    const port = stack.worlds.get('team-a')!.port;
    const { code, stderr } = await runCli([
      'search',
      '\u0085x\u0085',
      '--direct',
      `mark://localhost:${port}/`,
      '--ca',
      join(stack.dir, 'ca.pem'),
    ]);
    assert.equal(code, 2, stderr);
    assert.match(stderr, /expected a query of at least 2 characters/);
  });

  it('fails with a usage error without a token, and with exit 1 when the broker refuses the token', async () => {
    const missing = await runCli(['search', 'night', '--url', stack.mcpUrl.href], {
      env: { DEMARKUS_BROKER_TOKEN: '' },
    });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /not signed in: run demarkus-broker login/);
    const refused = await runCli(['search', 'night', '--url', stack.mcpUrl.href, '--token', 'not-a-token']);
    assert.equal(refused.code, 1);
    // The broker's own reason is shown, not only the status.
    assert.match(refused.stderr, /refused the token \(HTTP 401: [^)]+\); sign in again/);
    assert.equal(refused.stdout, '');
  });
});
