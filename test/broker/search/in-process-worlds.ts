import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorld, type World, type WorldOptions } from '../../../src/world/world.ts';
import { encodeRequest } from '../../../src/protocol/request.ts';
import type { Metadata } from '../../../src/protocol/metadata.ts';
import { parseResponse, type MarkResponse } from '../../../src/protocol/response.ts';
import type { Verb } from '../../../src/protocol/verbs.ts';
import { generateToken } from '../../../src/protocol/token.ts';
import type { LookupFn } from '../../../src/broker/search/index.ts';
import { pinnedNow, tokensToml } from '../../world/world-fixture.ts';

/**
 * Real worlds (store, catalog, body index, handler) answered in-process: the
 * wire bytes are real, only QUIC is left out. `reader` may read /private/**,
 * which no one else may; `writer` may publish anywhere.
 */
export type InProcessWorlds = {
  names: string[];
  tokens: { writer: string; reader: string };
  call(world: string, verb: Verb, path: string, metadata?: Metadata, body?: string): Promise<MarkResponse>;
  publish(world: string, path: string, body: string, metadata?: Metadata): Promise<void>;
  lookup: LookupFn;
  close(): Promise<void>;
};

export async function openInProcessWorlds(
  names: string[],
  options: Partial<WorldOptions> = {},
): Promise<InProcessWorlds> {
  const dir = await mkdtemp(join(tmpdir(), 'search-worlds-'));
  const tokens = { writer: generateToken(), reader: generateToken() };
  const tokensFile = join(dir, 'tokens.toml');
  await writeFile(
    tokensFile,
    tokensToml([
      { label: 'writer', paths: ['/**'], operations: ['publish'], raw: tokens.writer },
      { label: 'reader', paths: ['/private/**'], operations: ['read'], raw: tokens.reader },
    ]),
  );
  const worlds = new Map<string, World>();
  for (const name of names)
    worlds.set(name, await openWorld({ root: join(dir, name), tokensFile, now: pinnedNow, ...options }));
  // Through `handle`, so every answer crosses the response encoder and parser as on the wire.
  const call = async (world: string, verb: Verb, path: string, metadata: Metadata = {}, body = '') =>
    parseResponse(
      await worlds.get(world)!.handle({ bytes: encodeRequest({ verb, path, metadata, body: Buffer.from(body) }) }),
    );
  return {
    names,
    tokens,
    call,
    async publish(world, path, body, metadata = {}) {
      const current = await call(world, 'VERSIONS', path);
      const expected = current.status === 'ok' ? current.metadata.current! : '0';
      const answer = await call(
        world,
        'PUBLISH',
        path,
        { ...metadata, auth: tokens.writer, 'expected-version': expected },
        body,
      );
      if (answer.status !== 'created')
        throw new Error(`publish ${world}${path}: ${answer.status} ${Buffer.from(answer.body).toString()}`);
    },
    lookup: (world, request) => call(world, 'LOOKUP', request.path, request.metadata),
    async close() {
      for (const world of worlds.values()) await world.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
