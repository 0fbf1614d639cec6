/**
 * The check behind "every request a backend sent is a declared call" must be
 * able to fail: requests outside `kubernetesApiCalls` are reported.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kubernetesApiCalls } from '../../src/broker/kubernetes/index.ts';
import type { RecordedRequest } from './fake-api/server.ts';
import { assertOnlyDeclaredCalls } from './helpers.ts';

const context = {
  brokerNamespace: 'demarkus',
  worlds: { 'team-a': { namespace: 'team-a', tokensSecret: 'team-a-tokens' } },
};
const request = (fields: Partial<RecordedRequest>): RecordedRequest => ({
  verb: 'get',
  apiGroup: '',
  resource: 'secrets',
  namespace: 'demarkus',
  name: 'demarkus-broker-write-token-team-a',
  identity: 'broker',
  status: 200,
  query: new URLSearchParams(),
  ...fields,
});

describe('declared Kubernetes API calls', () => {
  it('accepts the calls the backends are declared to make', () => {
    assertOnlyDeclaredCalls(
      [
        request({}),
        request({ verb: 'create', name: null }),
        request({ verb: 'update', namespace: 'team-a', name: 'team-a-tokens' }),
        request({ apiGroup: 'coordination.k8s.io', resource: 'leases', name: 'demarkus-broker-sweeper' }),
      ],
      context,
    );
  });

  it('reports a verb no backend uses (delete)', () => {
    assert.throws(
      () => assertOnlyDeclaredCalls([request({ verb: 'delete' })], context),
      /undeclared API call: delete core\/secrets demarkus\/demarkus-broker-write-token-team-a/,
    );
  });

  it('reports a Secret outside the named objects and a world Secret in the broker namespace', () => {
    assert.throws(
      () => assertOnlyDeclaredCalls([request({ name: 'someone-elses-secret' })], context),
      /undeclared API call/,
    );
    assert.throws(
      () =>
        assertOnlyDeclaredCalls([request({ namespace: 'demarkus', name: 'team-a-tokens', verb: 'update' })], context),
      /undeclared API call/,
    );
  });

  it('reports a create in a world namespace (the world Secret must pre-exist)', () => {
    assert.throws(
      () => assertOnlyDeclaredCalls([request({ verb: 'create', namespace: 'team-a', name: null })], context),
      /undeclared API call/,
    );
  });

  it('reports a Service watch when discovery is not part of the context', () => {
    assert.throws(
      () =>
        assertOnlyDeclaredCalls(
          [request({ verb: 'watch', resource: 'services', namespace: null, name: null })],
          context,
        ),
      /undeclared API call/,
    );
  });

  it('lists each backend module with at least one call', () => {
    const modules = new Set(kubernetesApiCalls.flatMap((call) => call.by.split(', ')));
    for (const file of [
      'secret-write-token-store.ts',
      'secret-state-store.ts',
      'secret-tokens-sink.ts',
      'lease-elector.ts',
      'world-discovery.ts',
    ])
      assert.ok(modules.has(file), file);
  });
});
