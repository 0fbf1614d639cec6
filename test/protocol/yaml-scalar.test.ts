import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeYamlMap, decodeYamlMap } from '../../src/protocol/yaml-map.ts';
import { scalarStyle } from '../../src/protocol/yaml-scalar.ts';

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
