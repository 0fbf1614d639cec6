/**
 * A real broker in front of worlds `root` (the hub) and `team-a`, both
 * writable by alice, with the hub's publishing policy set to `policy` before
 * any test runs: the stage of the policy attack tests (policy-*.test.ts).
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';

export const policyUrl = 'mark://root/.well-known/demarkus/policy.md';

export type PolicyStack = {
  stack: Stack;
  alice: Client;
  /** alice's mark_publish of a new document (`expected_version` 0, `on_conflict` fail) with `body` unless `args` say otherwise. */
  publish: (args: Record<string, unknown>) => ReturnType<Client['callTool']>;
};

export async function startPolicyStack(policy: string, body: string): Promise<PolicyStack> {
  const stack = await startStack({
    worlds: ['root', 'team-a'],
    allow: { 'team-a': { emails: ['alice@example.com'] }, root: { emails: ['alice@example.com'] } },
  });
  const alice = await stack.connect();
  const publish = (args: Record<string, unknown>) =>
    alice.callTool({ name: 'mark_publish', arguments: { expected_version: 0, on_conflict: 'fail', body, ...args } });
  const set = await publish({ url: policyUrl, body: policy });
  assert.equal(isError(set), false, resultText(set));
  return { stack, alice, publish };
}
