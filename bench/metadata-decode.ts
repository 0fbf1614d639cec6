/**
 * Decoding a response's metadata block, per block: decodeYamlMap (line fast
 * path, parser for the rest) against the `yaml` parser alone on the same
 * blocks, the two alternated in rounds. Then encoding the same maps:
 * encodeYamlMap against the same writer without its fast paths (every scalar
 * through the full style analysis, keys sorted by their UTF-8 bytes). The blocks are what a world writes:
 * a FETCH answer (quoted version and timestamp, publisher keys), a LOOKUP
 * answer's counts, and a block with single-quoted text.
 * Then the adversarial blocks of test/support/adversarial-metadata.ts (64 KiB
 * each): the `yaml` parser alone on the whole block, as decodeYamlMap did
 * before the screen (baseline), against decodeYamlMap, alternated; and
 * decodeYamlMap on 4 KiB blocks that all go to the parser (its budget).
 * Run: `node bench/metadata-decode.ts [rounds] [blocksPerRound]` (default 6 × 20000).
 */
import { fileURLToPath } from 'node:url';
import {
  decodeYamlMap,
  decodeYamlMapByParser,
  encodeYamlMap,
  encodeYamlMapWith,
  parserBudgetChars,
} from '../src/protocol/yaml-map.ts';
import { writeScalarByAnalysis } from '../src/protocol/yaml-scalar.ts';
import { median } from './lib/measure.ts';
import { refusedShapes, slowValidShapes } from '../test/support/adversarial-metadata.ts';

const maps: Record<string, string>[] = [
  {
    title: 'Small',
    tags: 'bench, broker',
    modified: '2026-12-04T14:00:00Z',
    etag: 'sha256-4f0c7f6a2d8b9e1c',
    version: '3',
    'content-hash': 'sha256:9a1b2c3d4e5f60718293a4b5c6d7e8f9',
  },
  { status: 'ok', count: '12', total: '171', 'next-cursor': '' },
  { title: "it's: a note # with syntax", summary: 'plain words here', version: '12' },
];
const blocks = maps.map((map) => encodeYamlMap(map));

function microsPerBlock(decode: (text: string) => unknown, count: number): number {
  const started = performance.now();
  for (let i = 0; i < count; i++) decode(blocks[i % blocks.length]!);
  return ((performance.now() - started) * 1000) / count;
}

export function runMetadataDecodeBench(rounds = 6, perRound = 20_000): string[] {
  microsPerBlock(decodeYamlMapByParser, 2000);
  microsPerBlock(decodeYamlMap, 2000);
  const parser: number[] = [];
  const fast: number[] = [];
  for (let round = 0; round < rounds; round++) {
    parser.push(microsPerBlock(decodeYamlMapByParser, perRound / 10));
    fast.push(microsPerBlock(decodeYamlMap, perRound));
  }
  const p = median(parser);
  const f = median(fast);
  return [
    `Metadata block decode, ${blocks.length} world-written blocks, median of ${rounds} alternated rounds`,
    `yaml parser alone (baseline)        ${p.toFixed(2)} µs/block`,
    `decodeYamlMap (line fast path)      ${f.toFixed(2)} µs/block   ratio ${(p / f).toFixed(1)}x faster`,
  ];
}

/** Milliseconds one decode of `block` takes, refused or not. */
function millisFor(decode: (text: string) => unknown, block: string): number {
  const started = performance.now();
  try {
    decode(block);
  } catch {
    // A refusal is an answer too: its cost is what is measured.
  }
  return performance.now() - started;
}

/**
 * The parser alone (the decoder before the screen: every block that was not
 * plain `key: value` lines went to it whole) against decodeYamlMap, per
 * adversarial block, median of `rounds` alternated runs each.
 */
export function runAdversarialDecodeBench(rounds = 5): string[] {
  const lines = [
    `Adversarial metadata blocks (64 KiB), median of ${rounds} alternated runs: the yaml parser on the whole block (baseline) vs decodeYamlMap`,
  ];
  for (const [shape, block] of Object.entries({ ...refusedShapes, ...slowValidShapes })) {
    const before: number[] = [];
    const after: number[] = [];
    for (let round = 0; round < rounds; round++) {
      before.push(millisFor(decodeYamlMapByParser, block));
      after.push(millisFor(decodeYamlMap, block));
    }
    const [b, a] = [median(before), median(after)];
    lines.push(
      `${shape.padEnd(42)} parser ${b.toFixed(1).padStart(7)} ms   decodeYamlMap ${a.toFixed(2).padStart(6)} ms   ratio ${(b / a).toFixed(0)}x faster`,
    );
  }
  // The most the parser may still be given: a block of parserBudgetChars of shapes only it reads.
  const budget = (line: (i: number) => string) => {
    let block = '';
    for (let i = 0; block.length + line(i).length <= parserBudgetChars; i++) block += line(i);
    return block;
  };
  const residual: Record<string, string> = {
    'blank lines in a folded block scalar': `a: >\n  x\n${budget(() => '\n')}`,
    'keys separated from values by a tab': budget((i) => `k${i}:\tv\n`),
    'folded block scalars': budget((i) => `k${i}: >\n  x\n`),
    'a quoted value never closed': `a: "${budget(() => 'x\n  ')}`,
  };
  lines.push(
    `decodeYamlMap on blocks of ${parserBudgetChars} characters that all go to the parser (its budget per block):`,
  );
  for (const [shape, block] of Object.entries(residual)) {
    const times: number[] = [];
    for (let round = 0; round < rounds; round++) times.push(millisFor(decodeYamlMap, block));
    lines.push(`${shape.padEnd(42)} ${median(times).toFixed(1).padStart(7)} ms`);
  }
  return lines;
}

/** encodeYamlMap as it was before its fast paths: the baseline of the encode figures. */
function encodeByAnalysis(map: Readonly<Record<string, string>>): string {
  return encodeYamlMapWith(map, writeScalarByAnalysis, (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

function microsPerMap(encode: (map: Record<string, string>) => string, count: number): number {
  const started = performance.now();
  for (let i = 0; i < count; i++) encode(maps[i % maps.length]!);
  return ((performance.now() - started) * 1000) / count;
}

export function runMetadataEncodeBench(rounds = 6, perRound = 20_000): string[] {
  for (const map of maps)
    if (encodeYamlMap(map) !== encodeByAnalysis(map)) throw new Error('the two encoders disagree');
  microsPerMap(encodeByAnalysis, 2000);
  microsPerMap(encodeYamlMap, 2000);
  const analysis: number[] = [];
  const fast: number[] = [];
  for (let round = 0; round < rounds; round++) {
    analysis.push(microsPerMap(encodeByAnalysis, perRound));
    fast.push(microsPerMap(encodeYamlMap, perRound));
  }
  const a = median(analysis);
  const f = median(fast);
  return [
    `Metadata block encode, the same ${maps.length} maps, median of ${rounds} alternated rounds`,
    `full style analysis (baseline)      ${a.toFixed(2)} µs/block`,
    `encodeYamlMap (fast paths)          ${f.toFixed(2)} µs/block   ratio ${(a / f).toFixed(1)}x faster`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [rounds, perRound] = [Number(process.argv[2] ?? 6), Number(process.argv[3] ?? 20_000)];
  console.log(
    [
      ...runMetadataDecodeBench(rounds, perRound),
      ...runMetadataEncodeBench(rounds, perRound),
      ...runAdversarialDecodeBench(5),
    ].join('\n'),
  );
}
