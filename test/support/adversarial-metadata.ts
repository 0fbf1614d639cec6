/**
 * Metadata blocks near the 64 KiB request limit that made the `yaml` parser
 * spend 0.15–1.9 s of blocking CPU each (review of 2026-12-06): deep flow
 * collections, nested block sequences and complex keys, node properties, and
 * thousands of keys with comments (valid YAML, slow through the parser's
 * duplicate-key checks). Shared by test/security/metadata-block.test.ts,
 * test/protocol/yaml-map-entries.test.ts and bench/metadata-decode.ts.
 */
const size = 65_000;
const lines = (count: number, line: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => line(i))
    .join('\n')
    .slice(0, size);

/** Shapes no string map can have: every one is refused. */
export const refusedShapes: Readonly<Record<string, string>> = {
  'deep flow sequence value': `a: ${'['.repeat(size)}`,
  'deep flow sequence root': '['.repeat(size),
  'deep flow sequence with items': `a: ${'[a,'.repeat(size / 3)}`,
  'deep flow mapping root': '{'.repeat(size),
  'deep flow mapping keys': '{a: '.repeat(size / 4),
  'nested complex keys': '? '.repeat(size / 2),
  'nested block sequences': '- '.repeat(size / 2),
  'flow sequence on the line below its key': `a:\n  ${'['.repeat(size)}`,
  'block sequence below its key': `a:\n${'  - x\n'.repeat(size / 6)}`,
  'nested block mapping below its key': `a:\n  b:\n${'    c: d\n'.repeat(size / 9)}`,
  'anchors on thousands of values': lines(5000, (i) => `k${i}: &a${i} v`),
  'stacked tags': `a: ${'!t '.repeat(size / 3)}x`,
  aliases: `a: x\n${lines(5000, (i) => `k${i}: *a`)}`,
};

/** Valid string maps the parser alone was slow on: every one is decoded without it. */
export const slowValidShapes: Readonly<Record<string, string>> = {
  'thousands of keys with comments': lines(5000, (i) => `k${i}: a #c`),
  'thousands of quoted keys': lines(5000, (i) => `k${i}: 'v'`),
  'thousands of literal blocks': lines(3000, (i) => `k${i}: |\n  v`),
  'comment lines': '#c\n'.repeat(size / 3),
  'blank lines after a value': `a: x\n${'\n'.repeat(size - 10)}`,
  'one long folded value': `a: x\n${'  x\n'.repeat(size / 4)}`,
  'one long literal block': `a: |\n${'  x\n'.repeat(size / 4)}`,
  'one long folded double-quoted value': `a: "${'x\n  '.repeat(size / 4)}"`,
};
