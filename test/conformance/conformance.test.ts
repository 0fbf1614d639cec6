import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startConformanceBroker } from './serve-broker.ts';

const suite = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);
const baseline = (revision: string) => fileURLToPath(new URL(`./baseline-${revision}.yml`, import.meta.url));

function runSuite(url: string, revision: string, outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // The suite's bin picks the system node by its shebang; run its entry with ours (it needs >= 22).
    const child = spawn(
      process.execPath,
      [
        suite,
        'server',
        '--url',
        url,
        '--requirements',
        revision,
        '--expected-failures',
        baseline(revision),
        '-o',
        outDir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * The official MCP conformance suite against the broker's real MCP surface;
 * every scenario we do not pass is listed, with its reason, in a baseline file.
 */
describe('MCP conformance suite (@modelcontextprotocol/conformance)', () => {
  let broker: Awaited<ReturnType<typeof startConformanceBroker>>;
  let out: string;
  before(async () => {
    broker = await startConformanceBroker();
    out = await mkdtemp(join(tmpdir(), 'conformance-'));
  });
  after(async () => {
    await broker.close();
    await rm(out, { recursive: true, force: true });
  });

  for (const revision of ['2025-11-25', '2026-07-28']) {
    it(`passes every scenario outside the ${revision} baseline, and the baseline is not stale`, {
      timeout: 120_000,
    }, async () => {
      const { code, output } = await runSuite(broker.url, revision, join(out, revision));
      assert.equal(
        code,
        0,
        output
          .split('\n')
          .filter((line) => /✗|Baseline|unexpected|stale|Error/i.test(line))
          .join('\n'),
      );
      assert.match(output, /server-initialize: \d+ passed, 0 failed|server-stateless/);
    });
  }
});
