import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from './stack-fixture.ts';

/**
 * `metrics.enabled: false` (docs/configuration.md, "metrics") turns /metrics
 * off on the management listener of the real broker: it answers 404 like any
 * unknown path, while liveness and readiness go on answering.
 */
describe('metrics.enabled: false', () => {
  let stack: Stack;
  let base: string;
  before(async () => {
    stack = await startStack({ worlds: ['root'], brokerConfig: { metrics: { enabled: false } } });
    base = `http://127.0.0.1:${stack.broker.management.port}`;
  });
  after(() => stack.close());

  it('answers /metrics 404 on the management listener', async () => {
    const response = await fetch(`${base}/metrics`);
    assert.equal(response.status, 404);
    assert.doesNotMatch(await response.text(), /broker_/);
  });

  it('still answers /healthz and /readyz', async () => {
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
  });
});
