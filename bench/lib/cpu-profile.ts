import { Session } from 'node:inspector/promises';

export type ProfileSummary = {
  totalMs: number;
  byArea: Array<{ area: string; selfMs: number; share: number }>;
  topFunctions: Array<{ name: string; area: string; selfMs: number }>;
};

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
};

/**
 * Runs `work` under the V8 sampling profiler and attributes self time to areas
 * (our code, the QUIC library and its native addon, other dependencies, Node
 * internals, idle/GC), so a benchmark can say where a request's time goes.
 */
export async function profile(work: () => Promise<void>): Promise<ProfileSummary> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  await work();
  const { profile: result } = (await session.post('Profiler.stop')) as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  session.disconnect();
  const selfByNode = new Map<number, number>();
  for (const [i, id] of result.samples.entries()) {
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + (result.timeDeltas[i] ?? 0) / 1000);
  }
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, { area: string; selfMs: number }>();
  let totalMs = 0;
  for (const node of result.nodes) {
    const selfMs = selfByNode.get(node.id) ?? 0;
    if (selfMs === 0) continue;
    totalMs += selfMs;
    const area = areaOf(node.callFrame);
    byArea.set(area, (byArea.get(area) ?? 0) + selfMs);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    const entry = byFunction.get(name) ?? { area, selfMs: 0 };
    entry.selfMs += selfMs;
    byFunction.set(name, entry);
  }
  return {
    totalMs,
    byArea: [...byArea]
      .map(([area, selfMs]) => ({ area, selfMs, share: selfMs / totalMs }))
      .sort((a, b) => b.selfMs - a.selfMs),
    topFunctions: [...byFunction]
      .map(([name, v]) => ({ name, ...v }))
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, 12),
  };
}

function areaOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'gc';
  if (functionName === '(program)' || url === '') return 'native/program (incl. quiche addon)';
  if (url.includes('/@matrixai/')) return '@matrixai/quic (JS)';
  if (url.includes('/node_modules/')) return 'other dependencies';
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/src/')) return 'demarkus-broker (src/)';
  return 'bench harness';
}

function shortUrl(url: string): string {
  return url.replace(/^.*\/node_modules\//, '').replace(/^.*\/(src|bench)\//, '$1/');
}

export function formatProfile(summary: ProfileSummary): string {
  const lines = [`CPU profile (${summary.totalMs.toFixed(0)} ms sampled):`];
  for (const area of summary.byArea)
    lines.push(`  ${area.area.padEnd(40)} ${(area.share * 100).toFixed(1).padStart(5)}%`);
  lines.push('  top functions by self time:');
  for (const fn of summary.topFunctions) lines.push(`    ${fn.selfMs.toFixed(0).padStart(6)} ms  ${fn.name}`);
  return lines.join('\n');
}
