import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeYamlMap, decodeYamlMapByParser, encodeYamlMap } from '../../src/protocol/yaml-map.ts';
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
    '节点 a',
    '\u00a0x',
    'é: x',
    '',
    // Quoted source text, valid and not: escapes, quotes inside, text after the
    // closing quote, lone surrogates, escapes only the parser knows.
    "'it''s'",
    "'a # b: c'",
    "''",
    "'",
    "'a''",
    "'a' # c",
    "'a'b'",
    "' lead and trail '",
    '"3"',
    '"2026-12-04T14:00:00Z"',
    '""',
    '"',
    '"a\\"b"',
    '"a\\\\"',
    '"tab\\there\\n"',
    '"\\x41\\u00e9\\/\\ \\0\\a\\e"',
    '"\\ud800"',
    '"\\U0001F600"',
    '"\\N\\_\\L\\P"',
    '"\\q"',
    '"\\x4"',
    '"a" x',
    '"a" # c',
    '"a: b # c"',
    '" lead and trail "',
    '"it\'s"',
    '"节点"',
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

  it('reads back what encodeYamlMap writes, as the parser does', () => {
    // Strings the writer quotes (numbers, timestamps, booleans, indicators,
    // escapes) and folds (long values), so both quoted forms and continuation
    // lines are covered.
    const strings = [
      ...values,
      '3',
      '2026-12-04T14:00:00Z',
      'true',
      'yes',
      'a\nb',
      'say "hi"\\n',
      "it's: odd # yes",
      '\u0001\u007f\u0085\u2028\ufeff',
      '\ud83d\ude00',
      ' leading',
      'tab\there',
      'word '.repeat(30),
      `'${'quoted '.repeat(15)}'`,
    ];
    const random = prng(11);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    for (let n = 0; n < 2000; n++) {
      const map: Record<string, string> = {};
      for (let i = 1 + Math.floor(random() * 5); i > 0; i--)
        map[pick(['version', 'modified', 'a', 'b-c', 'k_9'])] = pick(strings);
      const text = encodeYamlMap(map);
      assert.deepEqual(decodeYamlMapByParser(text), map, text);
      assert.deepEqual(decodeYamlMap(text), map, text);
    }
  });
});
