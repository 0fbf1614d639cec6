import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as transportErrors from '../../src/transport/errors.ts';

const samples: transportErrors.MarkTransportError[] = [
  new transportErrors.DialFailedError('10.0.0.1:6309', { cause: new Error('x') }),
  new transportErrors.TlsHandshakeError('a.example', { cause: new Error('x') }),
  new transportErrors.TimeoutError(10, { cause: new Error('x') }),
  new transportErrors.ConnectionLostError({ cause: new Error('x') }),
  new transportErrors.OutcomeUnknownError({ cause: new Error('x') }),
  new transportErrors.ResponseTooLargeError(4),
  new transportErrors.RequestAbortedError({ cause: new Error('x') }),
  new transportErrors.ClientClosedError(),
  new transportErrors.ListenFailedError('[::]:6309', { cause: new Error('x') }),
  new transportErrors.TlsConfigError('bad', { part: 'key', cause: new Error('x') }),
];

describe('transport error classes', () => {
  it('give every failure its own stable code and class name', () => {
    assert.equal(new Set(samples.map((e) => e.code)).size, samples.length);
    for (const error of samples) {
      assert.ok(error instanceof transportErrors.MarkTransportError);
      assert.match(error.code, /^ERR_[A-Z_]+$/);
      assert.equal(error.name, error.constructor.name);
    }
  });

  it('keep the cause they were given', () => {
    const cause = new Error('library detail');
    assert.equal(new transportErrors.OutcomeUnknownError({ cause }).cause, cause);
    assert.equal(new transportErrors.DialFailedError('h:1', { cause }).cause, cause);
  });

  it('use the Go client wording for an unknown write outcome', () => {
    assert.equal(new transportErrors.OutcomeUnknownError().message, 'request sent but outcome unknown');
  });
});
