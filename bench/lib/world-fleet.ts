/**
 * Worlds in their own `demarkus-broker world` processes (so their CPU is not the
 * bench process's), each seeded with the same small corpus, and the real broker
 * in front of them in this process.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startWorldProcess, type WorldProcess } from '../../test/cli/cli-process.ts';
import { startBrokerFront, type BrokerFront } from '../../test/e2e/stack-fixture.ts';
import { generateToken, hashToken } from '../../src/protocol/token.ts';
import { MarkClient } from '../../src/transport/mark-client.ts';
import { makeScratchDirectory, stopOnExit } from './scratch.ts';

export const documentsPerWorld = 20;

export interface Fleet {
  worlds: WorldProcess[];
  front: BrokerFront;
  client: Client;
}

async function seedWorld(markClient: MarkClient, port: number, token: string, world: number): Promise<void> {
  const authority = { host: 'localhost', port, dialHost: '127.0.0.1' };
  for (let d = 0; d < documentsPerWorld; d++) {
    const body = `# Note ${d} of world ${world}\n\n## Deployment\n\nHow the broker reaches world ${world} over QUIC, with retries and timeouts.\n\n## Search\n\nEvery note mentions the broker, the catalog and full-text search.\n`;
    const response = await markClient.call(authority, {
      verb: 'PUBLISH',
      path: `/notes/n${d}.md`,
      metadata: { auth: token, 'expected-version': '0', tags: 'bench, broker' },
      body,
    });
    if (response.status !== 'created') throw new Error(`seed world ${world}: ${response.status}`);
  }
}

/**
 * `count` world processes under `dir` (which holds `ca.pem` and `key.pem`), seeded, behind one
 * broker; `brokerConfig` adds to the broker's configuration (rate limits stay off unless it says).
 */
export async function startFleet(
  dir: string,
  count: number,
  tls: { cert: string; key: string },
  brokerConfig: Record<string, unknown> = {},
): Promise<Fleet> {
  const token = generateToken();
  const certFile = join(dir, 'ca.pem');
  const keyFile = join(dir, 'key.pem');
  const base = join(dir, `fleet-${count}`);
  await mkdir(base, { recursive: true });
  const specs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const root = join(base, `w${i}`);
      const tokensFile = join(base, `w${i}.toml`);
      await writeFile(
        tokensFile,
        `[tokens.bench]\nhash = "${hashToken(token)}"\npaths = ["/**"]\noperations = ["publish"]\n`,
      );
      return { name: `w${i}`, root, tokensFile };
    }),
  );
  const worlds: WorldProcess[] = [];
  try {
    // Five at a time: quicker than one by one, gentler on a loaded machine than all at once.
    for (let i = 0; i < specs.length; i += 5)
      worlds.push(...(await Promise.all(specs.slice(i, i + 5).map((spec) => startWorld(spec, certFile, keyFile)))));
    const markClient = new MarkClient({ ca: tls.cert });
    try {
      for (const [i, world] of worlds.entries()) await seedWorld(markClient, world.port, token, i);
    } finally {
      await markClient.close();
    }
    const front = await startBrokerFront(
      base,
      specs.map((spec, i) => ({ name: spec.name, port: worlds[i]!.port, tokensFile: spec.tokensFile })),
      { brokerConfig: { rateLimit: { disabled: true }, ...brokerConfig } },
    );
    return { worlds, front, client: await front.connect() };
  } catch (error) {
    await stopWorlds(worlds);
    throw error;
  }
}

function startWorld(
  spec: { name: string; root: string; tokensFile: string },
  certFile: string,
  keyFile: string,
): Promise<WorldProcess> {
  // A loaded machine can take many seconds to start Node: allow two minutes.
  return startWorldProcess(
    [
      '--root',
      spec.root,
      '--tokens',
      spec.tokensFile,
      '--listen',
      '127.0.0.1:0',
      '--tls-cert',
      certFile,
      '--tls-key',
      keyFile,
      '--name',
      spec.name,
      '--rate-limit',
      '0',
    ],
    { signal: AbortSignal.timeout(120_000), onSpawn: stopOnExit },
  );
}

export async function stopWorlds(worlds: readonly WorldProcess[]): Promise<void> {
  for (const world of worlds) {
    world.child.kill('SIGTERM');
    await world.exited;
  }
}

export async function stopFleet(fleet: Fleet): Promise<void> {
  await fleet.front.close();
  await stopWorlds(fleet.worlds);
}

/**
 * A scratch directory holding the certificate, with one `fleet-<count>` folder (and its broker's `ca.pem`) per count;
 * remove it with `removeScratchDirectory` (bench/lib/scratch.ts), which an interrupted run does on its way out.
 */
export async function fleetDirectory(tls: { cert: string; key: string }, counts: readonly number[]): Promise<string> {
  const dir = await makeScratchDirectory('bench-fleet-');
  await writeFile(join(dir, 'ca.pem'), tls.cert);
  await writeFile(join(dir, 'key.pem'), tls.key);
  for (const count of counts) {
    await mkdir(join(dir, `fleet-${count}`), { recursive: true });
    await writeFile(join(dir, `fleet-${count}`, 'ca.pem'), tls.cert);
  }
  return dir;
}
