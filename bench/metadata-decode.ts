/**
 * Decoding a response's metadata block, per block: decodeYamlMap (line fast
 * path, parser for the rest) against the `yaml` parser alone on the same
 * blocks, the two alternated in rounds. Then encoding the same maps:
 * encodeYamlMap against the same writer without its fast paths (every scalar
 * through the full style analysis, keys sorted by their UTF-8 bytes). The blocks are what a world writes:
 * a FETCH answer (quoted version and timestamp, publisher keys), a LOOKUP
 * answer's counts, and a block with single-quoted text.
 * Run: `node bench/metadata-decode.ts [rounds] [blocksPerRound]` (default 6 × 20000).
 */
import { fileURLToPath } from 'node:url';
import { decodeYamlMap, decodeYamlMapByParser, encodeYamlMap, encodeYamlMapWith } from '../src/protocol/yaml-map.ts';
import { writeScalarByAnalysis } from '../src/protocol/yaml-scalar.ts';
import { median } from './lib/measure.ts';

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
  console.log([...runMetadataDecodeBench(rounds, perRound), ...runMetadataEncodeBench(rounds, perRound)].join('\n'));
}
