/**
 * `npm run bench`: every benchmark in one run, each printing its own baseline
 * and ratio. Sizes are the ones docs/benchmarks.md reports; pass `--quick` for
 * a smaller smoke run.
 */
import { runBareEcho, runTransportEcho } from './quic-echo.ts';
import { runWorldFetchBench } from './world-fetch.ts';
import { runPublishBench, runStartupBench } from './world-store.ts';
import { runLookupBenchmark, printLookupBenchmark } from './lookup.ts';
import { formatProfile } from './lib/cpu-profile.ts';
import { formatPatchBench, runQuicPatchBench } from './quic-patches.ts';
import { formatLargeDocuments, runLargeDocumentBench } from './large-documents.ts';
import { runLoadBench } from './load.ts';
import { runFanOutBench } from './fan-out.ts';
import { runSearchQuicBench } from './search-quic.ts';
import { runAdversarialDecodeBench, runMetadataDecodeBench, runMetadataEncodeBench } from './metadata-decode.ts';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const section = (title: string) => console.log(`\n=== ${title} ===`);

// Benches run above in this process, by their exported functions.
const inProcess = [
  'quic-echo.ts',
  'quic-patches.ts',
  'large-documents.ts',
  'world-fetch.ts',
  'lookup.ts',
  'world-store.ts',
  'load.ts',
  'fan-out.ts',
  'search-quic.ts',
  'metadata-decode.ts',
];
// Benches run in their own process, each with the flags and arguments its own
// header documents (some need --expose-gc, some start their own fixtures).
const ownProcess: Record<string, { flags?: string[]; full: string[]; quick: string[] }> = {
  'broker.ts': { flags: ['--expose-gc'], full: ['300'], quick: ['50'] },
  'abuse-memory.ts': { flags: ['--expose-gc'], full: [], quick: ['300'] },
  'fairness.ts': { full: [], quick: ['1', '20'] },
  'graph.ts': { full: [], quick: ['--quick'] },
  'knowledge.ts': { full: [], quick: ['50'] },
  'replicas.ts': { full: [], quick: ['200', '1'] },
  'watch.ts': { full: [], quick: ['3', '500'] },
  'search-eval.ts': { full: [], quick: ['--quick'] },
  'search-latency.ts': { flags: ['--expose-gc'], full: [], quick: ['10000'] },
  'concurrent-fetch.ts': { full: [], quick: ['16', '200', '2'] },
  'markdown-worst.ts': { full: [], quick: ['1', 'paragraph,headings (same text)'] },
  'world-list.ts': { full: [], quick: ['1000', '1'] },
  'world-lookup-fairness.ts': { full: [], quick: ['500', '1', '2'] },
};
const benchDir = fileURLToPath(new URL('.', import.meta.url));
const unlisted = readdirSync(benchDir).filter(
  (name) => name.endsWith('.ts') && name !== 'run-all.ts' && !inProcess.includes(name) && !(name in ownProcess),
);
if (unlisted.length > 0) throw new Error(`bench/run-all.ts does not run ${unlisted.join(', ')}: add it to a list`);

section('QUIC echo: our transport vs bare @matrixai/quic');
const bare = await runBareEcho({ requests: quick ? 200 : 1000, payloadBytes: 100 });
const ours = await runTransportEcho({ requests: quick ? 200 : 1000, payloadBytes: 100 });
console.log(
  `bare ${bare.roundTripsPerSecond.toFixed(0)}/s p50 ${bare.p50Ms.toFixed(2)} ms; ours ${ours.roundTripsPerSecond.toFixed(0)}/s p50 ${ours.p50Ms.toFixed(2)} ms; ratio ${(ours.roundTripsPerSecond / bare.roundTripsPerSecond).toFixed(3)}`,
);

section('@matrixai/quic patches: each against upstream, interleaved');
console.log(formatPatchBench(await runQuicPatchBench(quick ? 2 : 6, quick ? 50 : 200, 100)));

section('Large documents through the transport (goal 50 MB/s)');
console.log(
  formatLargeDocuments(await runLargeDocumentBench(quick ? 1 : 3, quick ? [1_048_576] : [1_048_576, 4_194_304])),
);

section('Metadata block decode and encode: fast paths vs the yaml parser and the full style analysis');
console.log(runMetadataDecodeBench(quick ? 2 : 6).join('\n'));
console.log(runMetadataEncodeBench(quick ? 2 : 6).join('\n'));
console.log(runAdversarialDecodeBench(quick ? 1 : 5).join('\n'));

section('FETCH through client and world server');
const fetch = await runWorldFetchBench(quick ? 200 : 1000);
console.log(fetch.lines.join('\n'));
console.log(formatProfile(fetch.profile));

section('LOOKUP catalog (handler level)');
printLookupBenchmark(await runLookupBenchmark(quick ? { sizes: [1000, 10_000] } : {}));

section('PUBLISH and start-up');
console.log((await runPublishBench(quick ? 100 : 300)).join('\n'));
console.log((await runStartupBench(quick ? [2000] : [10_000, 100_000])).join('\n'));

section('Throughput: concurrent MCP clients against one broker process');
console.log((await runLoadBench(quick ? 2 : 5, quick ? [1, 16] : [1, 4, 16, 64])).join('\n'));

section('Fan-out over worlds in separate processes');
console.log((await runFanOutBench(quick ? 5 : 30, quick ? [1, 10] : [1, 10, 30])).join('\n'));

section('Relaxed LOOKUP over QUIC beside a same-size FETCH');
console.log((await runSearchQuicBench(quick ? 2 : 10)).lines.join('\n'));

const failed: string[] = [];
for (const [name, run] of Object.entries(ownProcess)) {
  section(`bench/${name} (own process)`);
  const args = [...(run.flags ?? []), `${benchDir}${name}`, ...(quick ? run.quick : run.full)];
  const child = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (child.status !== 0) failed.push(`${name} (exit ${child.status ?? child.signal})`);
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
