/**
 * FETCH round trips through our client and world server, beside a bare
 * @matrixai/quic echo of the same response size, in the same run; then a CPU
 * profile of the FETCH loop attributed by area.
 * Run: `node bench/world-fetch.ts [requests]`.
 */
import { fileURLToPath } from 'node:url';
import { runBareEcho } from './quic-echo.ts';
import { startBenchWorld } from './lib/bench-world.ts';
import { formatLatency, measureSequential, ratio } from './lib/measure.ts';
import { formatProfile, profile, type ProfileSummary } from './lib/cpu-profile.ts';

export async function runWorldFetchBench(requests = 1000): Promise<{ lines: string[]; profile: ProfileSummary }> {
  const world = await startBenchWorld('fetch');
  const { server, client, authority } = world;
  const body = `# Small document\n\n${'A line of text about the broker.\n'.repeat(10)}`;
  await server.world.context.store.publish('/doc.md', Buffer.from(body), { tags: 'bench' }, {});
  const responseBytes = (await world.handle('FETCH', '/doc.md')).length;
  const fetchOnce = async () => {
    const response = await client.call(authority, { verb: 'FETCH', path: '/doc.md' });
    if (response.status !== 'ok') throw new Error(`FETCH answered ${response.status}`);
  };
  try {
    const bare = await runBareEcho({ requests, payloadBytes: responseBytes });
    const inProcess = await measureSequential('world handler in-process (no QUIC)', requests, () =>
      world.handle('FETCH', '/doc.md'),
    );
    const fetch = await measureSequential('FETCH: MarkClient -> QUIC -> world', requests, fetchOnce);
    const bareLine = formatLatency({
      name: `bare @matrixai/quic echo (${responseBytes} B)`,
      operations: bare.requests,
      perSecond: bare.roundTripsPerSecond,
      p50Ms: bare.p50Ms,
      p99Ms: bare.p99Ms,
    });
    const summary = await profile(async () => {
      for (let i = 0; i < Math.min(requests, 500); i++) await fetchOnce();
    });
    return {
      lines: [
        `FETCH of a ${body.length}-byte document, ${requests} sequential requests`,
        bareLine,
        formatLatency(fetch),
        formatLatency(inProcess),
        `ratio FETCH / bare echo (round trips/s): ${ratio(fetch.perSecond, bare.roundTripsPerSecond)}`,
        `share of a FETCH spent in the world handler: ${((inProcess.p50Ms / fetch.p50Ms) * 100).toFixed(1)}% (p50)`,
      ],
      profile: summary,
    };
  } finally {
    await world.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runWorldFetchBench(Number(process.argv[2] ?? 1000));
  console.log(result.lines.join('\n'));
  console.log(formatProfile(result.profile));
}
