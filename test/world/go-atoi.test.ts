import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goAtoi } from '../../src/world/go-atoi.ts';

describe("goAtoi (Go's strconv.Atoi on a 64-bit platform)", () => {
  it('reads an optional sign and ASCII digits within int64', () => {
    const cases: Array<[string, bigint]> = [
      ['0', 0n],
      ['-0', 0n],
      ['+1', 1n],
      ['007', 7n],
      ['-12', -12n],
      ['9223372036854775807', 9223372036854775807n],
      ['-9223372036854775808', -9223372036854775808n],
    ];
    for (const [raw, value] of cases) assert.equal(goAtoi(raw), value, raw);
  });

  it('refuses what Atoi refuses: empty, signs alone, spaces, other bases, underscores, overflow', () => {
    for (const raw of [
      '',
      '+',
      '-',
      '+-1',
      ' 1',
      '1 ',
      '0x1',
      '1_000',
      '1.0',
      '١',
      '9223372036854775808',
      '-9223372036854775809',
    ])
      assert.equal(goAtoi(raw), undefined, raw);
  });
});
