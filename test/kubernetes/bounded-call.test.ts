/**
 * boundedCall with the real client-node against the fake API server: a call
 * the server never answers ends at its bound, and the failure reads as "no
 * answer", not as an HTTP status (an aborted fetch's DOMException has a
 * numeric `code` too).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiCallTimeoutError, boundedCall, callBound } from '../../src/broker/kubernetes/bounded-call.ts';
import { apiFailure } from '../../src/broker/kubernetes/errors.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api/server.ts';
import { apis, eventually } from './helpers.ts';

let server: FakeApiServer;
before(async () => {
  server = await startFakeApiServer();
  server.hang((request) => request.resource === 'secrets');
});
after(() => server.close());

describe('boundedCall (fake API server, real client-node)', () => {
  it('ends a Secret read the API server never answers at its timeout, as no answer', async () => {
    const { core } = apis(server);
    const failure = await boundedCall(callBound(undefined, 50), (call) =>
      core.readNamespacedSecret({ namespace: 'demarkus', name: 'never-answered' }, call),
    ).then(
      () => assert.fail('a hung call cannot succeed'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof ApiCallTimeoutError, String(failure));
    const wrapped = apiFailure('demarkus/never-answered', 'read secret', failure);
    assert.equal(wrapped.status, undefined);
    assert.match(wrapped.message, /no answer from the API server$/);
    await eventually(() => server.openHungRequests === 0, 'the request closed by the client');
  });

  it("ends at the caller's signal, with the signal's reason", async () => {
    const { core } = apis(server);
    const stop = new AbortController();
    const pending = boundedCall(callBound(stop.signal), (call) =>
      core.readNamespacedSecret({ namespace: 'demarkus', name: 'never-answered' }, call),
    );
    await eventually(() => server.openHungRequests === 1, 'the read waiting for its answer');
    stop.abort(new Error('leadership ended'));
    await assert.rejects(pending, /leadership ended/);
    const wrapped = apiFailure('demarkus/never-answered', 'read secret', new DOMException('aborted', 'AbortError'));
    assert.equal(wrapped.status, undefined, 'an AbortError code (20) is not an HTTP status');
  });
});
