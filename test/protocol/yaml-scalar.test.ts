import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeYamlMap, decodeYamlMap } from '../../src/protocol/yaml-map.ts';
import { compareBytes } from '../../src/protocol/byte-order.ts';
import { scalarStyle, writeScalar, writeScalarByAnalysis } from '../../src/protocol/yaml-scalar.ts';
import { prng } from '../support/prng.ts';

describe('yaml.v3 scalar quoting', () => {
  const cases: Array<[string, string]> = [
    ['alpha,wire', 'plain'],
    ['AQAABS9kb2NzYS5tZA', 'plain'],
    ['693067c46c892c9ff8b035c8b3848fb3a8b74a1f5787f5bc960688ce678573dd', 'plain'],
    ['Note', 'plain'],
    ['3', 'double'],
    ['0.7', 'double'],
    ['true', 'double'],
    ['2026-01-01T00:00:00Z', 'double'],
    ['2026-01-01', 'double'],
    ['', 'double'],
    ['yes', 'double'],
    ['off', 'double'],
    ['null', 'double'],
    ['~', 'double'],
    ['0x1F', 'double'],
    ['1e3', 'double'],
    ['.5', 'double'],
    ['1:20', 'double'],
    ['*', 'single'],
    ['Design: auth', 'single'],
    ['- item', 'single'],
    ['a #b', 'single'],
    [' leading', 'single'],
    ['a\tb', 'double'],
    ['ok 🎉', 'double'],
    ['Beta | piped', 'plain'],
    ['a#b', 'plain'],
    ['sha256-534b0f02677fcd121e7c4be275e533709b0788060ccf2da54950441c698c527a', 'plain'],
    ['2026-13-01', 'plain'],
  ];
  for (const [value, style] of cases) {
    it(`writes ${JSON.stringify(value)} as ${style}`, () => assert.equal(scalarStyle(value), style));
  }

  it('folds a long plain value at a space past column 80 with a 4-space continuation', () => {
    const words = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
    const encoded = encodeYamlMap({ description: words });
    const lines = encoded.split('\n');
    assert.ok(lines.length > 2, 'value folded onto more than one line');
    assert.ok(lines[1]!.startsWith('    '), 'continuation indented by 4');
    assert.deepEqual(decodeYamlMap(encoded), { description: words });
  });

  it('escapes single quotes by doubling them', () => {
    assert.equal(encodeYamlMap({ q: "'quoted'" }), "q: '''quoted'''\n");
  });
});

describe('the writer and byte order fast paths', () => {
  const pieces = ['a', 'Z', '_', '-', '.', '/', '0', '9', ' ', ':', '#', "'", '"', 'é', '\ue000', '\ud83d\ude00', '\n'];
  const words = [
    ...['true', 'null', 'yes', 'off', 'y', 'N', 'status', 'ok', 'sha256-ab', '_x', '/docs/a.md', '.inf'],
    ...['3', '007', '09', '18446744073709551616', '0x1F', '1_000'],
  ];

  it('writes every string as the full analysis does', () => {
    const random = prng(11);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    for (let n = 0; n < 20_000; n++) {
      const s =
        random() < 0.3
          ? pick(words) + (random() < 0.5 ? '' : pick(pieces))
          : Array.from({ length: Math.floor(random() * 12) }, () => pick(pieces)).join('');
      const long = random() < 0.1 ? `${s}${'word-'.repeat(20)}` : s;
      const column = Math.floor(random() * 90);
      for (const foldable of [true, false])
        assert.equal(
          writeScalar(long, column, foldable),
          writeScalarByAnalysis(long, column, foldable),
          JSON.stringify(long),
        );
    }
  });

  it('orders strings by their UTF-8 bytes, beyond the BMP too', () => {
    const random = prng(12);
    const units = ['a', 'b', 'Z', '~', '\u00e9', '\u2028', '\ue000', '\uffff', '\ud83d\ude00', '\ud800\udc00'];
    const make = (): string =>
      Array.from({ length: Math.floor(random() * 5) }, () => units[Math.floor(random() * units.length)]).join('');
    for (let n = 0; n < 20_000; n++) {
      const [a, b] = [make(), make()];
      assert.equal(
        Math.sign(compareBytes(a, b)),
        Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))),
        `${a} ${b}`,
      );
    }
  });
});
