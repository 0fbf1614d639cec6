/**
 * Real world servers for gateway tests: each on 127.0.0.1 with the shared dev
 * certificate, its own store and tokens.toml in a temporary directory, and a
 * stop/restart that keeps the port and the files (to test outages).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorldServer } from '../../../src/world/world-server.ts';
import { startLoopbackWorldServer, testTls } from '../../world/world-fixture.ts';
import type { Identity } from '../../../src/broker/identity.ts';
import type { WorldGatewayMetrics, WorldHealth } from '../../../src/broker/worlds/index.ts';

export type TestWorld = {
  name: string;
  dir: string;
  tokensFile: string;
  port: number;
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
};

export async function startTestWorld(name: string, tokensToml = ''): Promise<TestWorld> {
  const dir = await mkdtemp(join(tmpdir(), `broker-world-${name}-`));
  const tokensFile = join(dir, 'tokens.toml');
  await writeFile(tokensFile, tokensToml);
  const listen = (port: number) => startLoopbackWorldServer({ name, root: join(dir, 'root'), tokensFile, port });
  let server: WorldServer | null = await listen(0);
  const port = server.port;
  return {
    name,
    dir,
    tokensFile,
    port,
    async stop() {
      await server?.close();
      server = null;
    },
    async restart() {
      server ??= await listen(port);
    },
    async close() {
      await server?.close();
      server = null;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A PEM file with the dev certificate, for `worldDialer.caFile`. */
export async function writeCaFile(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'worlds-ca.pem');
  await writeFile(path, (await testTls()).cert);
  return path;
}

/** The world part of a file-storage broker config: dial 127.0.0.1, verify the certificate as `localhost`. */
export function worldYaml(world: TestWorld, extra = '', tokensFile = world.tokensFile): string {
  return [
    `  - name: ${world.name}`,
    `    internalAddress: "127.0.0.1:${world.port}"`,
    '    serverName: localhost',
    `    tokensFile: ${JSON.stringify(tokensFile)}`,
    '    defaultToken: { paths: ["/**"] }',
    ...(extra === '' ? [] : [extra]),
  ].join('\n');
}

export const person = (email: string, emailVerified = true): Identity => ({
  subject: `sub-${email}`,
  email,
  emailVerified,
  groups: [],
  issuedBy: 'broker',
});

export type MetricEvent =
  | { kind: 'finished'; world: string; verb: string; status: string }
  | { kind: 'failed'; world: string; verb: string; code: string; reason: string }
  | { kind: 'rejected'; world: string; verb: string; reason: string }
  | { kind: 'health'; world: string; health: WorldHealth };

/** Metrics hook that remembers every event. */
export function recordingMetrics(): WorldGatewayMetrics & { events: MetricEvent[]; of(world: string): MetricEvent[] } {
  const events: MetricEvent[] = [];
  return {
    events,
    of: (world) => events.filter((e) => e.world === world),
    requestFinished: (world, verb, status) => events.push({ kind: 'finished', world, verb, status }),
    requestFailed: (world, verb, code, reason) => events.push({ kind: 'failed', world, verb, code, reason }),
    requestRejected: (world, verb, reason) => events.push({ kind: 'rejected', world, verb, reason }),
    healthChanged: (world, health) => events.push({ kind: 'health', world, health }),
  };
}
