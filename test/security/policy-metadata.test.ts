/**
 * Threat: a credential (or a character the org bans) reaches a world through
 * a write's metadata while the policy checks only the body. Metadata is
 * stored with the document and shown to every reader by mark_fetch, so a key
 * in `metadata.notes` leaks as surely as one in the body; mark_graph_publish
 * and mark_index pass the caller's metadata the same way (policy-gate.ts).
 *
 * The attack below succeeded before the fix (checked by running this file
 * against it): with `no-secrets | | block` and `banned-characters | U+2014 |
 * block` in force, a body with an AWS key id was refused, and the same
 * clean body with the key id in `metadata.notes` and a GitHub token after an
 * em dash in `metadata.title` was created, and mark_fetch showed both.
 *
 * The real broker and real worlds over QUIC, driven by the official MCP SDK
 * client (test/e2e/stack-fixture.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isError, resultText, type Stack } from '../e2e/stack-fixture.ts';
import { startPolicyStack, type PolicyStack } from './policy-stack.ts';

const policy =
  '# Publishing policy\n\nThe rules every publish is checked against.\n\n| rule | setting | severity |\n|------|---------|----------|\n| no-secrets | | block |\n| banned-characters | U+2014 | block |\n';
const body = '# Credentials\n\nWhere the deploy credentials are kept.\n';
const awsKey = 'AKIAIOSFODNN7EXAMPLE';
const githubToken = `ghp_${'abcdefghijklmnopqrstuvwxyz0123456789'}`;

describe('the publishing policy reads metadata as well as the body', () => {
  let stack: Stack;
  let alice: Client;
  let publish: PolicyStack['publish'];

  before(async () => {
    ({ stack, alice, publish } = await startPolicyStack(policy, body));
  });
  after(() => stack.close());

  it('refuses a secret or a banned character that is only in metadata, naming the field, and stores nothing', async () => {
    const url = 'mark://team-a/docs/creds.md';
    const result = await publish({
      url,
      metadata: { title: `Creds \u2014 ${githubToken}`, notes: awsKey, tags: 'category:ops' },
    });
    const text = resultText(result);
    assert.equal(isError(result), true, text);
    assert.match(text, /- no-secrets \(block\): metadata\.notes looks like an AWS access key id\./);
    assert.match(text, /- no-secrets \(block\): metadata\.title looks like a GitHub token\./);
    assert.match(text, /- banned-characters \(block\): U\+2014 \("\u2014"\) in metadata\.title\./);
    assert.ok(!text.includes(awsKey) && !text.includes(githubToken), 'the refusal never repeats the secret');
    assert.match(resultText(await alice.callTool({ name: 'mark_fetch', arguments: { url } })), /not-found/);

    const clean = await publish({
      url,
      metadata: { title: 'Creds', notes: 'kept in the vault', tags: 'category:ops' },
    });
    assert.equal(isError(clean), false, resultText(clean));
  });
});
