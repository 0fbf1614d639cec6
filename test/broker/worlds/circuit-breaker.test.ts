import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CircuitBreaker, type CircuitState } from '../../../src/broker/worlds/index.ts';

function breaker(threshold = 3, cooldownMs = 1_000) {
  let now = 0;
  const states: CircuitState[] = [];
  const circuit = new CircuitBreaker({
    failureThreshold: threshold,
    cooldownMs,
    now: () => now,
    onStateChange: (s) => states.push(s),
  });
  return { circuit, states, advance: (ms: number) => (now += ms) };
}

function fail(circuit: CircuitBreaker, times: number): void {
  for (let i = 0; i < times; i++) circuit.recordFailure(circuit.admit() ?? assert.fail('admitted'));
}

describe('per-world circuit breaker', () => {
  it('stays closed below the failure threshold', () => {
    const { circuit, states } = breaker(3);
    fail(circuit, 2);
    assert.equal(circuit.state, 'closed');
    assert.notEqual(circuit.admit(), null);
    assert.deepEqual(states, []);
  });

  it('opens after the threshold of consecutive failures and then fails fast', () => {
    const { circuit, states } = breaker(3);
    fail(circuit, 3);
    assert.equal(circuit.state, 'open');
    assert.equal(circuit.admit(), null);
    assert.deepEqual(states, ['open']);
  });

  it('counts only consecutive failures: a success resets the count', () => {
    const { circuit } = breaker(3);
    fail(circuit, 2);
    circuit.recordSuccess(circuit.admit()!);
    fail(circuit, 2);
    assert.equal(circuit.state, 'closed');
  });

  it('lets one probe through after the cool-down and fails the others fast', () => {
    const { circuit, advance } = breaker(1, 1_000);
    fail(circuit, 1);
    advance(999);
    assert.equal(circuit.admit(), null);
    assert.equal(circuit.retryAfterMs(), 1);
    advance(1);
    const probe = circuit.admit();
    assert.deepEqual(probe, { probe: true });
    assert.equal(circuit.state, 'half-open');
    assert.equal(circuit.admit(), null);
  });

  it('closes when the probe succeeds', () => {
    const { circuit, states, advance } = breaker(1, 1_000);
    fail(circuit, 1);
    advance(1_000);
    circuit.recordSuccess(circuit.admit()!);
    assert.equal(circuit.state, 'closed');
    assert.deepEqual(states, ['open', 'half-open', 'closed']);
  });

  it('opens again for a full cool-down when the probe fails', () => {
    const { circuit, states, advance } = breaker(1, 1_000);
    fail(circuit, 1);
    advance(1_000);
    circuit.recordFailure(circuit.admit()!);
    assert.equal(circuit.state, 'open');
    assert.equal(circuit.retryAfterMs(), 1_000);
    assert.deepEqual(states, ['open', 'half-open', 'open']);
  });

  it('frees the probe slot when the probe ends neutrally (caller gave up)', () => {
    const { circuit, advance } = breaker(1, 1_000);
    fail(circuit, 1);
    advance(1_000);
    circuit.recordNeutral(circuit.admit()!);
    assert.deepEqual(circuit.admit(), { probe: true });
  });

  it('refuses a nonsensical configuration', () => {
    assert.throws(() => new CircuitBreaker({ failureThreshold: 0, cooldownMs: 1, now: () => 0 }), RangeError);
    assert.throws(() => new CircuitBreaker({ failureThreshold: 1, cooldownMs: 0, now: () => 0 }), RangeError);
  });
});
