/**
 * Threat: a writer slips a document past the org's publishing policy by
 * choosing its path. The policy is exempt only for the standard itself (so a
 * broken policy can always be fixed through the broker); the broker's own
 * generated state never passes the policy gate at all, because the crawl
 * writes it straight through the world gateway.
 *
 * The attack below succeeded while the exemption was "any path under
 * `/.well-known/` or `/.demarkus/`, in any world" (checked by running this
 * file against it): a body holding an AWS access key id, refused at
 * `/notes/keys.md`, was created at `mark://team-a/.well-known/keys.md`, at
 * `mark://team-a/.demarkus/keys.md` and under the hub's `/.demarkus/`, a dot
 * directory that LIST never shows and lookups leave out by default: a good
 * hiding place. An append of the key to such a document went through too.
 *
 * The real broker and real worlds over QUIC, driven by the official MCP SDK
 * client (test/e2e/stack-fixture.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { crawlerIdentity, runFederationCrawl } from '../../src/broker/graph/index.ts';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';

const policyUrl = 'mark://root/.well-known/demarkus/policy.md';
const policy = (rows: string[]) =>
  `# Publishing policy\n\nThe rules every publish is checked against.\n\n| rule | setting | severity |\n|------|---------|----------|\n${rows.join('\n')}\n`;
// AWS's documented example key id: the shape of a real one, the value of none.
const leakedKey = '# Keys\n\nThe deploy key.\n\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n';

describe('the publishing policy cannot be sidestepped by the path a document is written to', () => {
  let stack: Stack;
  let alice: Client;
  const call = (name: string, args: Record<string, unknown>) => alice.callTool({ name, arguments: args });
  const publish = (args: Record<string, unknown>) =>
    call('mark_publish', { expected_version: 0, on_conflict: 'fail', ...args });
  const currentVersion = async (url: string) =>
    Number(/current: (\d+)/.exec(resultText(await call('mark_versions', { url })))?.[1] ?? 0);

  before(async () => {
    stack = await startStack({
      worlds: ['root', 'team-a'],
      allow: {
        'team-a': { emails: ['alice@example.com'] },
        // The crawl writes the hub as itself, as `demarkus-broker crawl` does.
        root: { emails: ['alice@example.com', crawlerIdentity.email] },
      },
    });
    alice = await stack.connect();
    const set = await publish({ url: policyUrl, body: policy(['| h1-first | | block |', '| no-secrets | | block |']) });
    assert.equal(isError(set), false, resultText(set));
  });
  after(() => stack.close());

  it('refuses a credential under /.well-known/ and /.demarkus/ as it does anywhere else', async () => {
    for (const url of [
      'mark://team-a/notes/keys.md',
      'mark://team-a/.well-known/keys.md',
      'mark://team-a/.demarkus/keys.md',
      // The standard's path names the standard only on the hub.
      'mark://team-a/.well-known/demarkus/policy.md',
      'mark://root/.well-known/keys.md',
    ]) {
      const result = await publish({ url, body: leakedKey });
      assert.equal(isError(result), true, `${url}: ${resultText(result)}`);
      assert.match(
        resultText(result),
        /^publish refused by the publishing policy .*\n- no-secrets \(block\): line 5 looks like an AWS access key id\./,
        url,
      );
      const fetched = await call('mark_fetch', { url });
      assert.match(resultText(fetched), /not-found/, `${url}: a refused publish sends nothing to the world`);
    }
    // The hub's generated state is written by the crawl, never through mark_publish
    // (test/security/hub-generated-writes.test.ts): refused before the policy reads it.
    for (const url of ['mark://root/.demarkus/keys.md', 'mark://root/.demarkus/crawl-state/team-a.md']) {
      const result = await publish({ url, body: leakedKey });
      assert.equal(isError(result), true, `${url}: ${resultText(result)}`);
      assert.match(resultText(result), /^publish refused: .* is written only by the federation crawl/, url);
      assert.match(resultText(await call('mark_fetch', { url })), /not-found/, url);
    }
  });

  it('refuses an append of a credential to a document under /.demarkus/', async () => {
    const url = 'mark://team-a/.demarkus/notes.md';
    const created = await publish({ url, body: '# Notes\n\nScratch notes.\n' });
    assert.equal(isError(created), false, resultText(created));
    const appended = await call('mark_append', { url, body: '\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n' });
    assert.equal(isError(appended), true, resultText(appended));
    assert.match(resultText(appended), /^append refused by the publishing policy .*\n- no-secrets \(block\)/);
    assert.doesNotMatch(resultText(await call('mark_fetch', { url })), /AKIA/);
  });

  it('still takes the standard on the hub when it breaks the policy, by name or by the hub address', async () => {
    const style = await publish({ url: 'mark://root/.well-known/demarkus/style.md', body: 'Write short sentences.\n' });
    assert.equal(isError(style), false, resultText(style));
    assert.doesNotMatch(resultText(style), /policy/);
    const hubAddress = `mark://localhost:${stack.worlds.get('root')!.port}`;
    const template = await publish({ url: `${hubAddress}/.well-known/demarkus/template.md`, body: '- /docs/\n' });
    assert.equal(isError(template), false, resultText(template));
    // A policy without an H1 breaks its own h1-first rule; fixing the policy must still be possible.
    const headless = policy(['| h1-first | | block |', '| no-secrets | | block |']).replace(/^# .*\n\n/, '');
    const fixed = await publish({ url: policyUrl, body: headless, expected_version: await currentVersion(policyUrl) });
    assert.equal(isError(fixed), false, resultText(fixed));
  });

  it("still writes the broker's generated state on the hub under a policy it breaks", async () => {
    await publish({
      url: policyUrl,
      body: policy(['| required-fields | owner | block |']),
      expected_version: await currentVersion(policyUrl),
    });
    const blocked = await publish({ url: 'mark://team-a/docs/plain.md', body: '# Plain\n\nA page.\n' });
    assert.equal(isError(blocked), true, 'the policy is in force');
    const summary = await runFederationCrawl({ gateway: stack.broker.gateway, hub: 'root', now: () => new Date() });
    const outcomes = new Map(summary.published.map((p) => [p.path, p.outcome]));
    assert.equal(outcomes.get('/graph.md'), 'published', JSON.stringify(summary.published));
    assert.equal(outcomes.get('/.demarkus/crawl-state/team-a.md'), 'published', JSON.stringify(summary.published));
  });
});
