/**
 * Threat: the publishing policy silently stops applying. The broker reads
 * the policy from the hub (docs/knowledge.md "The publishing standard");
 * when the hub cannot be reached before the broker ever read the policy (a
 * broker started while the hub is down or restarting), every write went out
 * unchecked, a credential with it, and nothing said so.
 *
 * The attack below succeeded before the fix (checked by running this file
 * against it): with the hub's world closed, a body holding an AWS key id was
 * published to team-a (`status: created`) though the hub's policy blocks
 * secrets. Now such a write is refused with a retryable error while the
 * policy's state is unknown (docs/decisions.md, "deny on doubt"); a copy
 * already held keeps applying, and a hub without policy.md, or a broker
 * without the hub world, still takes writes.
 *
 * Real worlds over QUIC behind the test gateway (test/broker/mcp/helpers).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createKnowledge } from '../../src/broker/knowledge/index.ts';
import { runTool } from '../../src/broker/mcp/run-tool.ts';
import { markPublish } from '../../src/broker/mcp/tools/publish.ts';
import { toolContext } from '../broker/mcp/helpers/context.ts';
import { startTestStack, type TestStack } from '../broker/mcp/helpers/fixture-gateway.ts';

const policy =
  '# Publishing policy\n\nRules.\n\n| rule | setting | severity |\n|---|---|---|\n| no-secrets | | block |\n';
const leaky = '# Deploy\n\nHow to deploy.\n\nkey AKIAIOSFODNN7EXAMPLE\n';
const clean = '# Deploy\n\nHow to deploy.\n';

describe('the publishing policy denies writes while its state is unknown', () => {
  const stacks: TestStack[] = [];
  after(() => Promise.all(stacks.map((stack) => stack.close())));
  const start = async (names: string[]) => {
    const stack = await startTestStack(names);
    stacks.push(stack);
    const failures: string[] = [];
    const knowledge = createKnowledge({
      gateway: stack.gateway,
      onCheckFailed: (world, path) => failures.push(`${world}${path}`),
    });
    const publish = (path: string, body: string) =>
      runTool(
        markPublish,
        { url: `mark://team-a${path}`, body, expected_version: 0, on_conflict: 'fail' },
        { ...toolContext(stack.gateway), knowledge },
      );
    return { stack, knowledge, publish, failures };
  };

  it('refuses, retryably, every write while the hub never answered', async () => {
    const { stack, publish, failures } = await start(['root', 'team-a']);
    await stack.seed('root', '/.well-known/demarkus/policy.md', policy);
    await stack.worlds.root!.close();
    for (const body of [leaky, clean]) {
      const refused = await publish('/docs/deploy.md', body);
      assert.equal(refused.isError, true, refused.text);
      assert.match(
        refused.text,
        /^publish refused: the publishing policy could not be read from the hub; retry shortly/,
      );
    }
    assert.deepEqual(failures, ['root/.well-known/demarkus/policy.md'], 'one check per interval, reported');
    assert.ok(
      !stack.gateway.sent.some((call) => call.world === 'team-a' && call.verb === 'PUBLISH'),
      'nothing was sent to the world',
    );
  });

  it('keeps applying a policy already read when the hub stops answering', async () => {
    const { stack, knowledge, publish } = await start(['root', 'team-a']);
    await stack.seed('root', '/.well-known/demarkus/policy.md', policy);
    assert.equal((await knowledge.standard.policyState()).kind, 'in-force', 'the policy is read once');
    await stack.worlds.root!.close();
    const refused = await publish('/docs/held.md', leaky);
    assert.match(refused.text, /refused by the publishing policy[^\n]*\n- no-secrets \(block\)/);
    const passed = await publish('/docs/held.md', clean);
    assert.notEqual(passed.isError, true, passed.text);
  });

  it('takes writes when the hub has no policy.md, or the broker has no hub world', async () => {
    const withHub = await start(['root', 'team-a']);
    const noPolicy = await withHub.publish('/docs/a.md', clean);
    assert.notEqual(noPolicy.isError, true, noPolicy.text);
    const withoutHub = await start(['team-a']);
    const noHub = await withoutHub.publish('/docs/a.md', clean);
    assert.notEqual(noHub.isError, true, noHub.text);
    assert.deepEqual(withoutHub.failures, [], 'a hub that is not configured is not a failed check');
  });
});
