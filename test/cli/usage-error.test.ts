import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseHostPort, UsageError } from '../../src/cli/usage-error.ts';

describe('parseHostPort: a listen address flag', () => {
  it('reads HOST:PORT, [IPv6]:PORT, :PORT and a bare host (default port)', () => {
    assert.deepEqual(parseHostPort('--listen', '127.0.0.1:7000', 6309), { host: '127.0.0.1', port: 7000 });
    assert.deepEqual(parseHostPort('--listen', '[::1]:0', 6309), { host: '::1', port: 0 });
    assert.deepEqual(parseHostPort('--listen', ':6400', 6309), { host: '::', port: 6400 });
    assert.deepEqual(parseHostPort('--listen', 'localhost', 6309), { host: 'localhost', port: 6309 });
  });

  it('refuses digits alone, which read as a host named "6309", naming the flag and the two right forms', () => {
    assert.throws(
      () => parseHostPort('--listen', '6309', 6309),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.equal(error.message, '--listen must be HOST:PORT, e.g. `[::]:6309` or `:6309`, got "6309"');
        return true;
      },
    );
  });

  it('refuses a port above 65535 and text that is no address', () => {
    assert.throws(() => parseHostPort('--listen', 'localhost:70000', 6309), {
      message: '--listen: the port must be at most 65535, got "localhost:70000"',
    });
    assert.throws(() => parseHostPort('--listen', 'a:b:c', 6309), UsageError);
  });
});
