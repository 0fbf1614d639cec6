import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { flagOrEnv, numberFlag } from '../../src/cli/number-flag.ts';
import { UsageError } from '../../src/cli/usage-error.ts';

describe('numberFlag, the parser of every numeric flag of the CLI', () => {
  const timeout = { min: 1, max: 600_000, unit: 'milliseconds' };

  it('reads plain decimal digits within the range', () => {
    assert.equal(numberFlag('--timeout', '2500', timeout), 2500);
    assert.equal(numberFlag('--similarity', '0.75', { min: 0.5, max: 1, fraction: true }), 0.75);
    assert.equal(numberFlag('--timeout', undefined, timeout), undefined);
    assert.equal(numberFlag('--limit', undefined, { min: 1, max: 100 }, 10), 10);
  });

  it('refuses what Number() would read as NaN, 0 or another number, naming the flag, the range and the text', () => {
    for (const text of ['abc', '', ' 5', '0x10', '1e3', '-1', '1.5', 'Infinity']) {
      assert.throws(
        () => numberFlag('--timeout', text, timeout),
        (error: unknown) =>
          error instanceof UsageError &&
          error.message ===
            `--timeout must be a whole number of milliseconds from 1 to 600000, got ${JSON.stringify(text)}`,
        text,
      );
    }
    assert.throws(() => numberFlag('--timeout', '0', timeout), /from 1 to 600000, got "0"/);
    assert.throws(
      () => numberFlag('--retention', '-1', { min: 0 }),
      /--retention must be a whole number of at least 0/,
    );
  });

  it('blames the variable when the value came from the environment, and takes an empty one as unset', () => {
    assert.deepEqual(flagOrEnv('--port', undefined, 'DEMARKUS_DEV_PORT', { DEMARKUS_DEV_PORT: 'x' }), [
      'DEMARKUS_DEV_PORT',
      'x',
    ]);
    assert.deepEqual(flagOrEnv('--port', undefined, 'DEMARKUS_DEV_PORT', { DEMARKUS_DEV_PORT: '' }), [
      'DEMARKUS_DEV_PORT',
      undefined,
    ]);
    assert.deepEqual(flagOrEnv('--port', '7000', 'DEMARKUS_DEV_PORT', { DEMARKUS_DEV_PORT: '1' }), ['--port', '7000']);
  });
});
