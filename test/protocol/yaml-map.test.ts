import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeYamlMap, decodeYamlMapByParser, encodeYamlMap, YamlMapError } from '../../src/protocol/yaml-map.ts';
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

  /** The parser's answer, or its error. */
  const byParser = (text: string): Record<string, string> | Error => {
    try {
      return decodeYamlMapByParser(text);
    } catch (error) {
      return error as Error;
    }
  };

  /**
   * The only blocks the parser reads as a string map that decodeYamlMap refuses:
   * a node property on a value (`k: &a`, `k: !t`: the screen refuses anchors and
   * tags, docs/decisions.md), and a single-quoted value left open by `''` at the
   * end of its line with more keys below, which the `yaml` package closes at the
   * line end (libyaml, like our screen, reads the lines below as quoted text).
   */
  const knownRefusal = (text: string) => /^[^#\n]*:[ \t]+[&!*]/m.test(text) || /: 'a''$/m.test(text);

  /** decodeYamlMap answers what the parser answers, but for knownRefusal; refusals may differ in wording. */
  const assertAsParser = (text: string) => {
    const expected = byParser(text);
    if (expected instanceof Error) {
      assert.throws(() => decodeYamlMap(text), YamlMapError, text);
      return;
    }
    let actual: Record<string, string>;
    try {
      actual = decodeYamlMap(text);
    } catch (error) {
      assert.ok(error instanceof YamlMapError && knownRefusal(text), `${text}: ${error}`);
      return;
    }
    assert.deepEqual(actual, expected, text);
  };

  it('answers what the YAML parser answers, on generated blocks', () => {
    const random = prng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    for (let n = 0; n < 3000; n++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 4) }, () => `${pick(keys)}: ${pick(values)}`);
      if (random() < 0.1) lines.push(`  ${pick(values)}`);
      if (random() < 0.05) lines.push('# comment');
      assertAsParser(`${lines.join('\n')}${random() < 0.8 ? '\n' : ''}`);
    }
  });

  it('answers what the YAML parser answers, on generated multi-line blocks with comments', () => {
    // The shapes the line decoder reads (trailing comments, folded plain and
    // quoted values, literal blocks, blank and comment lines, document markers,
    // CRLF) and their near misses (blank lines and comments inside a value,
    // trailing spaces, tabs, keep chomping, explicit indentation, `>`).
    const words = [
      'alpha',
      'b c',
      '- x',
      '[y]',
      '#z',
      'w #c',
      'k: v',
      'x:',
      "it''s",
      'q\\ r',
      '\\ s',
      '',
      '  more',
      '\t',
      '---',
      '...',
    ];
    const random = prng(13);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const indent = () => ' '.repeat(1 + Math.floor(random() * 5));
    const folded = (open: string, close: string) => {
      let text = `${open}${pick(words)}`;
      for (let i = Math.floor(random() * 3); i >= 0; i--) text += `\n${random() < 0.1 ? '' : indent()}${pick(words)}`;
      return `${text}${close}${random() < 0.2 ? ` #${pick(words)}` : ''}`;
    };
    const literal = () => {
      const header = pick(['|', '|-', '|+', '|2', '>', '| #c', '|-  ']);
      const depth = indent();
      const body = Array.from({ length: Math.floor(random() * 4) }, () =>
        random() < 0.2 ? pick(['', ' ', `${depth}  `]) : `${random() < 0.1 ? indent() : depth}${pick(words)}`,
      );
      return [header, ...body].join('\n');
    };
    const value = () => {
      const form = random();
      if (form < 0.3) return folded('', '');
      if (form < 0.45) return folded("'", "'");
      if (form < 0.6) return folded('"', '"');
      if (form < 0.8) return literal();
      return `${pick(values)}${random() < 0.5 ? ` #${pick(words)}` : ''}`;
    };
    for (let n = 0; n < 3000; n++) {
      const lines: string[] = [];
      if (random() < 0.1) lines.push(pick(['---', '--- # c', '# c']));
      for (let i = Math.floor(random() * 4); i >= 0; i--) {
        lines.push(`${pick(keys)}:${random() < 0.05 ? '' : ' '}${value()}`);
        if (random() < 0.2) lines.push(pick(['', '# c', '  # c', '   ', '...']));
      }
      const text = lines.join(random() < 0.1 ? '\r\n' : '\n');
      assertAsParser(random() < 0.5 ? `${text}\n` : text);
    }
  });

  it('refuses a duplicate key, across the lines decoded and the entries parsed', () => {
    assert.throws(() => decodeYamlMap('a: x\nb: 1\na: y'), { message: 'invalid YAML: DUPLICATE_KEY' });
    assert.throws(() => decodeYamlMap('a: >\n  x\na: y'), { message: 'invalid YAML: DUPLICATE_KEY' });
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
