import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitMetadataEntries } from '../../src/protocol/yaml-map-entries.ts';
import { decodeYamlMapByParser, decodeYamlMapWith, encodeYamlMap, YamlMapError } from '../../src/protocol/yaml-map.ts';
import { splitFrontmatter } from '../../src/protocol/frontmatter.ts';
import { refusedShapes, slowValidShapes } from '../support/adversarial-metadata.ts';

/** decodeYamlMapWith over the real parser, recording in `parsed` (also when it throws) what reaches it. */
function decodeCounting(text: string, parsed: string[] = []): { map: Record<string, string>; parsed: string[] } {
  const map = decodeYamlMapWith(text, (entry) => {
    parsed.push(entry);
    return decodeYamlMapByParser(entry);
  });
  return { map, parsed };
}

/** The metadata blocks of the Go reference's wire goldens (responses and WATCH events). */
function goldenBlocks(): string[] {
  const blocks: string[] = [];
  for (const folder of ['mark', 'watch']) {
    const dir = join(import.meta.dirname, '..', 'golden', folder);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.golden'))) {
      let rest: Uint8Array = readFileSync(join(dir, file));
      // A WATCH golden is a run of fenced blocks; a response golden is one.
      while (rest.length > 0) {
        const { block, body } = splitFrontmatter(rest);
        if (block === null) break;
        blocks.push(Buffer.from(block).toString());
        rest = body;
      }
    }
  }
  return blocks;
}

describe('metadata block screen', () => {
  for (const [shape, block] of Object.entries(refusedShapes)) {
    it(`refuses ${shape} before any parser runs`, () => {
      assert.throws(() => splitMetadataEntries(block), YamlMapError);
      const parsed: string[] = [];
      assert.throws(() => decodeCounting(block, parsed), YamlMapError);
      assert.deepEqual(parsed, []);
    });
  }

  for (const [shape, block] of Object.entries(slowValidShapes)) {
    it(`decodes ${shape} as the parser does, without it`, () => {
      const { map, parsed } = decodeCounting(block);
      assert.deepEqual(parsed, []);
      assert.deepEqual(map, decodeYamlMapByParser(block));
    });
  }

  it('reads every golden block as the parser does, without it', () => {
    const blocks = goldenBlocks();
    assert.ok(blocks.length >= 20, `${blocks.length} golden blocks`);
    for (const block of blocks) {
      const { map, parsed } = decodeCounting(block);
      assert.deepEqual(parsed, [], block);
      assert.deepEqual(map, decodeYamlMapByParser(block), block);
    }
  });

  it('reads what encodeYamlMap writes without the parser: quoted, escaped and folded values', () => {
    const values = ['3', 'true', 'a\nb', 'say "hi"\\n', "it's: odd # yes", ' leading', 'tab\there', 'word '.repeat(40)];
    for (const value of values) {
      const { map, parsed } = decodeCounting(encodeYamlMap({ key: value, other: `${value} ${value}` }));
      assert.deepEqual(parsed, []);
      assert.deepEqual(map, { key: value, other: `${value} ${value}` });
    }
  });

  it('keeps what Go accepts that only the parser reads, one entry at a time', () => {
    // A folded block scalar and a complex key (yaml.v3 writes a key over 128
    // characters as `? key`): each entry goes to the parser alone.
    const { map, parsed } = decodeCounting(`a: x\nb: >\n  folded\n  text\n? ${'k'.repeat(130)}\n: v\nc: y\n`);
    assert.deepEqual(map, { a: 'x', b: 'folded text\n', ['k'.repeat(130)]: 'v', c: 'y' });
    assert.deepEqual(parsed, ['b: >\n  folded\n  text\n', `? ${'k'.repeat(130)}\n: v\n`]);
  });

  it('gives the parser at most 4096 characters of one block, and says so', () => {
    const entry = (i: number) => `k${i}: >\n  folded\n`;
    const fits = Array.from({ length: 200 }, (_, i) => entry(i))
      .join('')
      .slice(0, 4000);
    assert.equal(Object.keys(decodeCounting(fits).map).length > 0, true);
    const over = Array.from({ length: 400 }, (_, i) => entry(i)).join('');
    assert.throws(() => decodeCounting(over), /needs the full YAML parser for more than 4096 characters/);
  });

  it('keeps block scalars, quoted lines, comments, empty values and document markers', () => {
    const block = [
      '--- # start',
      '# a comment',
      'plain: words here # trailing comment',
      'empty:',
      'also-empty: # nothing',
      "quoted: 'it''s' # c",
      'double: "a\\tb"',
      'literal: |',
      '  line one',
      '    indented',
      '',
      'stripped: |-',
      '  text',
      'folded-plain: one',
      '    two',
      'folded-quoted: "one',
      '    \\ two"',
      '...',
      '# end',
    ].join('\n');
    const { map, parsed } = decodeCounting(block);
    assert.deepEqual(parsed, []);
    assert.deepEqual(map, decodeYamlMapByParser(block));
    assert.deepEqual(map, {
      plain: 'words here',
      empty: '',
      'also-empty': '',
      quoted: "it's",
      double: 'a\tb',
      literal: 'line one\n  indented\n',
      stripped: 'text',
      'folded-plain': 'one two',
      'folded-quoted': 'one  two',
    });
  });
});
