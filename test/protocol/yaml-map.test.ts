import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeYamlMap, decodeYamlMapByParser } from '../../src/protocol/yaml-map.ts';
import { prng } from '../support/prng.ts';

describe('metadata block decoding', () => {
  // Pieces chosen to sit on both sides of the simple path's rules: indicators,
  // comment and mapping markers, null words, quotes, trailing colons and spaces.
  const keys = ['query', 'limit', 'match', 'corpus-df', 'a_b', 'x', '-k', 'k k'];
  const values = [
    'auth design',
    '10',
    'null',
    '~',
    'Null',
    'a: b',
    'a #c',
    'a#c',
    "session's",
    '- x',
    '-x',
    '?x',
    ':x',
    'x:',
    'x: ',
    '[1, 2]',
    '{a}',
    'a,b=3,c=4',
    '"q"',
    "'q'",
    '0.5,1.25',
    '.inf',
    'yes',
    '&a',
    '*a',
    '!t',
    '|',
    '>',
    '%x',
    '@x',
    '`x',
    'trailing ',
    '节点',
    '',
  ];

  it('answers exactly what the YAML parser answers, on generated blocks', () => {
    const random = prng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    for (let n = 0; n < 3000; n++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 4) }, () => `${pick(keys)}: ${pick(values)}`);
      if (random() < 0.1) lines.push(`  ${pick(values)}`);
      if (random() < 0.05) lines.push('# comment');
      const text = `${lines.join('\n')}${random() < 0.8 ? '\n' : ''}`;
      let expected: Record<string, string> | Error;
      try {
        expected = decodeYamlMapByParser(text);
      } catch (error) {
        expected = error as Error;
      }
      if (expected instanceof Error) assert.throws(() => decodeYamlMap(text), { message: expected.message }, text);
      else assert.deepEqual(decodeYamlMap(text), expected, text);
    }
  });
});
