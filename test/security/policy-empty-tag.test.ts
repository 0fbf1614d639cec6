/**
 * Threat: a writer passes the org's `required-tags` rule without tagging the
 * document. The rule asks for an `axis:value` tag on each axis it names
 * (docs/knowledge.md "The policy format"), so that mark_lookup can find the
 * document by subject; a tag with the axis and no value classifies nothing.
 *
 * The attack below succeeded before the fix (checked by running this file
 * against it): with `required-tags | category | block` in force, a document
 * with no tag at all was refused, and the same document published with
 * `tags: "category:"` (or `"category: "`, `"Category :"`) was created.
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
  '# Publishing policy\n\nThe rules every publish is checked against.\n\n| rule | setting | severity |\n|------|---------|----------|\n| required-tags | category | block |\n';
const body = '# Runbook\n\nHow to rotate the signing key.\n';

describe('the required-tags rule cannot be met by an axis without a value', () => {
  let stack: Stack;
  let alice: Client;
  let publish: PolicyStack['publish'];

  before(async () => {
    ({ stack, alice, publish } = await startPolicyStack(policy, body));
  });
  after(() => stack.close());

  it('refuses an empty category tag as it refuses no tag', async () => {
    for (const [i, tags] of ['category:', 'category: ', 'Category :', 'runbook, category:'].entries()) {
      const url = `mark://team-a/docs/empty-tag-${i}.md`;
      const result = await publish({ url, metadata: { tags } });
      assert.equal(isError(result), true, `${JSON.stringify(tags)}: ${resultText(result)}`);
      assert.match(
        resultText(result),
        /\n- required-tags \(block\): no "category:" tag\. Fix: add a tag such as category:<value>/,
      );
      assert.match(resultText(await alice.callTool({ name: 'mark_fetch', arguments: { url } })), /not-found/);
    }
    const tagged = await publish({ url: 'mark://team-a/docs/tagged.md', metadata: { tags: 'category: runbook' } });
    assert.equal(isError(tagged), false, resultText(tagged));
  });
});
