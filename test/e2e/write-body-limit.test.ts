import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { maxBodyBytes } from '../../src/protocol/limits.ts';
import { isError, resultText, startStack, type Stack } from './stack-fixture.ts';

/**
 * Mark's 1 MiB body limit as an agent meets it through the write tools (real MCP client, real
 * worlds over QUIC). Before the broker checked it, a body over the limit was sent, and the world
 * answered `server-error` "could not read request" (the Go reference's answer to a request over its
 * body limit), which mark_publish passed on as a normal result that named neither cause nor cure.
 */
describe('the write tools refuse a body over Mark’s 1 MiB limit before sending it (real MCP client)', () => {
  let stack: Stack;
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  before(async () => {
    stack = await startStack({ worlds: ['root', 'team-a'] });
    client = await stack.connect();
  });
  after(() => stack.close());

  it('mark_publish refuses a body over the limit as a tool error that gives its size, the limit and what to do', async () => {
    const refused = await call('mark_publish', {
      url: 'mark://team-a/big.md',
      body: 'a'.repeat(1_100_000),
      expected_version: 0,
    });
    assert.equal(isError(refused), true, resultText(refused));
    assert.equal(
      resultText(refused),
      'publish refused: the body is 1,100,000 bytes; a Mark document holds at most 1 MiB (1,048,576 bytes), so nothing was sent: split it into several documents and link them from one another (or from an index document)',
    );
    assert.match(resultText(await call('mark_fetch', { url: 'mark://team-a/big.md' })), /^status: not-found\n/);
  });

  it('counts UTF-8 bytes, as the world does: a body of exactly the limit is created, one byte more is refused', async () => {
    const whole = 'é'.repeat(maxBodyBytes / 2);
    const created = await call('mark_publish', { url: 'mark://team-a/full.md', body: whole, expected_version: 0 });
    assert.match(resultText(created), /^status: created\n/);
    const over = await call('mark_publish', { url: 'mark://team-a/over.md', body: `${whole}x`, expected_version: 0 });
    assert.equal(isError(over), true, resultText(over));
    assert.match(resultText(over), /^publish refused: the body is 1,048,577 bytes; /);
  });

  it('mark_graph_publish refuses an export over the limit, giving its size and what to do, and writes nothing', async () => {
    // Four documents of 1,000 long external links: the link graph's export passes 1 MiB.
    const pad = 'x'.repeat(300);
    for (let d = 0; d < 4; d++) {
      const url = `mark://team-a/links-${d}.md`;
      const links = Array.from({ length: 1000 }, (_, i) => `- [link ${i}](https://example.com/${pad}/${d}/${i})`);
      await call('mark_publish', { url, body: `# Links ${d}\n\n${links.join('\n')}\n`, expected_version: 0 });
      assert.equal(isError(await call('mark_graph', { url, depth: 1 })), false);
    }
    const refused = await call('mark_graph_publish', { url: 'mark://root/graphs/graph.md', expected_version: 0 });
    assert.equal(isError(refused), true, resultText(refused).slice(0, 300));
    const text = resultText(refused);
    const stated =
      /^graph publish refused: the graph export \(\d+ nodes, \d+ edges\) is ([\d,]+) bytes; a Mark document holds at most 1 MiB \(1,048,576 bytes\), so nothing was sent: the broker's link graph holds every crawl since it started and cannot be made smaller from here\. The federation crawl \(demarkus-broker crawl\) writes the hub's \/graph\.md cut to fit the limit; /.exec(
        text,
      );
    assert.ok(stated !== null, text);
    assert.ok(Number(stated[1]!.replaceAll(',', '')) > maxBodyBytes, text);
    assert.match(resultText(await call('mark_fetch', { url: 'mark://root/graphs/graph.md' })), /^status: not-found\n/);
  });

  it('mark_append refuses text that alone is over the limit, before anything is sent', async () => {
    await call('mark_publish', { url: 'mark://team-a/log.md', body: '# Log\n', expected_version: 0 });
    const refused = await call('mark_append', { url: 'mark://team-a/log.md', body: 'b'.repeat(1_100_000) });
    assert.equal(isError(refused), true, resultText(refused));
    assert.equal(
      resultText(refused),
      'append refused: the text to append is 1,100,000 bytes; a Mark document holds at most 1 MiB (1,048,576 bytes), so nothing was sent: publish it as several new documents (mark_publish) and link them from this one',
    );
    assert.match(
      resultText(await call('mark_versions', { url: 'mark://team-a/log.md' })),
      /^status: ok\ntotal: 1\ncurrent: 1\n/,
    );
  });

  it('mark_append passes on the world’s answer to an append that would take the document over the limit, and says what it means', async () => {
    await call('mark_publish', {
      url: 'mark://team-a/notes.md',
      body: `# Notes\n\n${'a'.repeat(1_000_000)}\n`,
      expected_version: 0,
    });
    const answer = await call('mark_append', { url: 'mark://team-a/notes.md', body: 'b'.repeat(100_000) });
    // The world's status, byte-compatible with the Go reference (mark-protocol §2.6), is the tool's answer.
    assert.equal(isError(answer), false, resultText(answer));
    assert.equal(
      resultText(answer),
      'status: server-error\n\n\n# Server error\n\ncontent exceeds size limit\n\n' +
        'Nothing was appended: the document with this text added would be over 1 MiB (1,048,576 bytes), the most a Mark document holds. Publish the text as a new document (mark_publish) and link it from this one.\n',
    );
    assert.deepEqual(answer.structuredContent, { status: 'server-error', url: 'mark://team-a/notes.md', metadata: {} });
    assert.match(
      resultText(await call('mark_versions', { url: 'mark://team-a/notes.md' })),
      /^status: ok\ntotal: 1\ncurrent: 1\n/,
    );
  });
});
