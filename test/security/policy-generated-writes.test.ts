/**
 * Threat: a writer stores in a world a document the org's publishing policy
 * forbids by having the broker generate its text. mark_publish and
 * mark_append were checked; mark_graph_publish and mark_index, which PUBLISH a
 * document the broker renders (the link graph, a content-hash index) to a URL
 * the caller chooses, were not (docs/knowledge.md: "Every other write is
 * checked, whatever its path").
 *
 * The attack below succeeded before the fix (checked by running this file
 * against it): with `required-tags | category | block` in force, an untagged
 * document at `mark://team-a/docs/anything.md` was refused by mark_publish and
 * created by `mark_graph_publish {url, expected_version: 0}`, and mark_index
 * (force=true) created an untagged index at `mark://team-a/docs/index-a.md`.
 *
 * The policy governs the documents stored, whoever wrote their text: a
 * generated document is checked as mark_publish checks a whole document, and
 * the caller meets the metadata rules with the tools' `metadata` argument.
 *
 * The real broker and real worlds over QUIC, driven by the official MCP SDK
 * client (test/e2e/stack-fixture.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';

const policyUrl = 'mark://root/.well-known/demarkus/policy.md';
const policy = (rows: string[]) =>
  `# Publishing policy\n\nThe rules every publish is checked against.\n\n| rule | setting | severity |\n|------|---------|----------|\n${rows.join('\n')}\n`;

describe('the publishing policy applies to the documents the broker generates for a caller', () => {
  let stack: Stack;
  let alice: Client;
  const call = (name: string, args: Record<string, unknown>) => alice.callTool({ name, arguments: args });
  const currentVersion = async (url: string) =>
    Number(/current: (\d+)/.exec(resultText(await call('mark_versions', { url })))?.[1] ?? 0);
  const setPolicy = async (rows: string[]) => {
    const set = await call('mark_publish', {
      url: policyUrl,
      body: policy(rows),
      expected_version: await currentVersion(policyUrl),
      on_conflict: 'fail',
    });
    assert.equal(isError(set), false, resultText(set));
  };
  const assertNotStored = async (url: string) =>
    assert.match(resultText(await call('mark_fetch', { url })), /not-found/, `${url}: a refused write sends nothing`);

  before(async () => {
    stack = await startStack({
      worlds: ['root', 'team-a'],
      allow: { 'team-a': { emails: ['alice@example.com'] }, root: { emails: ['alice@example.com'] } },
    });
    alice = await stack.connect();
    await call('mark_publish', {
      url: 'mark://team-a/docs/runbook.md',
      body: '# Runbook\n\nHow to rotate the signing key.\n',
      expected_version: 0,
    });
    await setPolicy(['| required-tags | category | block |']);
  });
  after(() => stack.close());

  it('refuses an untagged graph where mark_publish refuses an untagged document', async () => {
    const url = 'mark://team-a/docs/anything.md';
    const published = await call('mark_publish', { url, body: '# Anything\n\nA page.\n', expected_version: 0 });
    assert.equal(isError(published), true, 'the policy is in force');
    const graph = await call('mark_graph_publish', { url, expected_version: 0 });
    assert.equal(isError(graph), true, resultText(graph));
    assert.match(
      resultText(graph),
      /^graph publish refused by the publishing policy \(mark:\/\/root\/\.well-known\/demarkus\/policy\.md\):\n- required-tags \(block\): no "category:" tag\. Fix: add a tag such as category:<value> to metadata\.tags\./,
    );
    await assertNotStored(url);
  });

  it('refuses an untagged content-hash index', async () => {
    const url = 'mark://team-a/docs/index-a.md';
    const indexed = await call('mark_index', { source: 'mark://team-a/docs/', target: url, force: true });
    assert.equal(isError(indexed), true, resultText(indexed));
    assert.match(resultText(indexed), /^index refused by the publishing policy .*\n- required-tags \(block\)/);
    await assertNotStored(url);
  });

  it('publishes both when the caller tags them through metadata', async () => {
    const metadata = { tags: 'category:generated' };
    const graph = await call('mark_graph_publish', { url: 'mark://team-a/graph.md', expected_version: 0, metadata });
    assert.equal(isError(graph), false, resultText(graph));
    const index = await call('mark_index', {
      source: 'mark://team-a/docs/',
      target: 'mark://root/index/team-a.md',
      force: true,
      metadata,
    });
    assert.equal(isError(index), false, resultText(index));
    for (const url of ['mark://team-a/graph.md', 'mark://root/index/team-a.md'])
      assert.match(resultText(await call('mark_fetch', { url })), /^tags: category:generated$/m, url);
  });

  it('says the body is generated when a rule on the body refuses it, and honours confirm for an ask rule', async () => {
    // Both formats open with a blockquote under the H1 (the Go reference's exact formats), not a sentence.
    await setPolicy(['| summary-sentence | | block |']);
    const url = 'mark://team-a/graph.md';
    const blocked = await call('mark_graph_publish', { url, expected_version: await currentVersion(url) });
    assert.equal(isError(blocked), true, resultText(blocked));
    assert.match(resultText(blocked), /- summary-sentence \(block\): no summary paragraph under the H1\./);
    assert.match(
      resultText(blocked),
      /The broker generates this document's body, so it cannot be edited here: .*severity of summary-sentence/,
    );

    await setPolicy(['| summary-sentence | | ask |']);
    const index = { source: 'mark://team-a/docs/', target: 'mark://root/index/team-a.md', force: true };
    const version = await currentVersion(index.target);
    const asked = await call('mark_index', { ...index, expected_version: version });
    assert.equal(isError(asked), true, resultText(asked));
    assert.match(resultText(asked), /index again with confirm: true/);
    const confirmed = await call('mark_index', { ...index, expected_version: version, confirm: true });
    assert.equal(isError(confirmed), false, resultText(confirmed));
    assert.match(resultText(confirmed), /policy-warnings: 1 \(mark:\/\/root\/\.well-known\/demarkus\/policy\.md\)/);
  });
});
