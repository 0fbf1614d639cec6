import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseResponse } from '../../src/protocol/response.ts';
import { isKnownStatus } from '../../src/protocol/status.ts';
import { encodeRequest } from '../../src/protocol/request.ts';
import { startWorldFixture, type WorldFixture } from './world-fixture.ts';
import { prng } from '../support/prng.ts';

const verbs = ['FETCH', 'LIST', 'VERSIONS', 'PUBLISH', 'APPEND', 'ARCHIVE', 'LOOKUP', 'WATCH', 'DELETE', 'fetch', ''];
const paths = [
  '/',
  '/docs/a.md',
  '/docs',
  '/../etc/passwd',
  '/a/../../b',
  `/sha256-${'a'.repeat(64)}`,
  'relative',
  '/x\u0000y',
  `/${'p'.repeat(5000)}`,
  '/docs/a.md/v1',
  '/docs/a.md/v0',
  '/ü/ß.md',
  '/health',
];
const blocks = [
  '',
  '---\n\n---\n',
  '---\nquery: auth\n---\n',
  "---\nquery: '*'\nlimit: 0\n---\n",
  '---\nkey: v\n',
  '---\n- a\n---\n',
  '---\n: :\n---\n',
  '---\nexpected-version: -1\n---\n',
  '---\nauth: AUTH\nexpected-version: "0"\ntags: a, b\n---\n',
  '---\ncursor: !!!\n---\n',
  '---\n&a x: *a\n---\n',
  '---\npage-size: 1\n---\n',
];

function randomRequest(next: () => number, auth: string): Uint8Array {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const roll = next();
  if (roll < 0.1) return Buffer.from(Array.from({ length: Math.floor(next() * 300) }, () => Math.floor(next() * 256)));
  const line = `${pick(verbs)}${next() < 0.95 ? ' ' : ''}${pick(paths)}${next() < 0.9 ? '\n' : ''}`;
  const block = pick(blocks).replace('AUTH', auth);
  const body =
    next() < 0.5
      ? '# Title\n\nbody text\n'
      : Buffer.from(Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * 256))).toString('latin1');
  let bytes: Buffer = Buffer.from(line + block + body, 'latin1');
  if (roll > 0.8) bytes = mutate(bytes, next);
  if (roll > 0.95) bytes = bytes.subarray(0, Math.floor(next() * bytes.length));
  return bytes;
}

function mutate(bytes: Buffer, next: () => number): Buffer {
  const copy = Buffer.from(bytes);
  const flips = 1 + Math.floor(next() * 4);
  for (let i = 0; i < flips && copy.length > 0; i++) copy[Math.floor(next() * copy.length)] = Math.floor(next() * 256);
  return copy;
}

function assertValidResponse(bytes: Uint8Array, input: Uint8Array): void {
  const response = parseResponse(bytes);
  assert.ok(
    isKnownStatus(response.status),
    `unknown status "${response.status}" for ${JSON.stringify(Buffer.from(input).toString('latin1').slice(0, 80))}`,
  );
  assert.doesNotMatch(Buffer.from(response.body).toString(), /\bat .+\.ts:\d+/, 'no stack trace in a response');
}

describe('fuzzing the world handler', () => {
  let world: WorldFixture;
  let auth: string;
  before(async () => {
    world = await startWorldFixture();
    auth = world.tokens.writer!;
    await world.local('PUBLISH', '/docs/a.md', { auth, tags: 'auth' }, '# A\n');
  });
  after(() => world.close());

  it('answers 5000 random and mutated requests in-process with a valid response each', async () => {
    const next = prng(20261202);
    for (let i = 0; i < 5000; i++) {
      const input = randomRequest(next, auth);
      assertValidResponse(await world.server.world.handle({ bytes: input }), input);
    }
  });

  it('answers 300 of them over QUIC and stays healthy', async () => {
    const next = prng(7);
    for (let i = 0; i < 300; i++) {
      const input = randomRequest(next, auth);
      // A WATCH that parses is answered by a stream that stays open (test/world/watch.test.ts), not one response.
      if (Buffer.from(input).toString('latin1').startsWith('WATCH ')) continue;
      assertValidResponse(await world.raw(input), input);
    }
    const health = await world.call('FETCH', '/health');
    assert.equal(health.status, 'ok');
  });

  it('answers a huge request line and an oversized body over QUIC with server-error', async () => {
    const longLine = Buffer.from(`FETCH /${'a'.repeat(10_000)}\n`);
    assert.equal(parseResponse(await world.raw(longLine)).status, 'server-error');
    const big = encodeRequest({
      verb: 'PUBLISH',
      path: '/big.md',
      metadata: { auth },
      body: Buffer.alloc(1_200_000, 0x61),
    });
    assert.equal(parseResponse(await world.raw(big)).status, 'server-error');
    assert.equal((await world.call('FETCH', '/health')).status, 'ok');
  });
});
