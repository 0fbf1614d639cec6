/**
 * Threat: one unauthenticated client stalls a world for every client with
 * crafted request metadata. The block (up to 64 KiB) was parsed by the `yaml`
 * package on the event loop whenever it was not plain `key: value` lines, and
 * the parser spent 0.15–1.9 s of CPU on one block nested 65,000 deep (`a: [[[…`,
 * `{{{…`, `? ? …`, `- - …`) or holding 5,000 keys with comments. Over QUIC with
 * the default rate limit, 30 such requests from 3 connections made another
 * client's `FETCH /health` wait 8 s (review of 2026-12-06, /tmp/review-world).
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): every shape below reached the parser, whose cost is the stall; the world
 * answered it `bad-request` only after that. The time another client waits is
 * not asserted (no timing in tests); what makes it short is: the shape is
 * refused before any parser runs, and the valid slow shapes are decoded without
 * it, so the CPU a block costs is linear in its size.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeYamlMapByParser, decodeYamlMapWith } from '../../src/protocol/yaml-map.ts';
import { parseResponse, startWorldFixture, text, type WorldFixture } from '../world/world-fixture.ts';
import { refusedShapes, slowValidShapes } from '../support/adversarial-metadata.ts';

/** How many entries of `block` the real parser is given while decoding it, and whether it was refused. */
function parserCalls(block: string): { calls: number; refused: boolean } {
  let calls = 0;
  try {
    decodeYamlMapWith(block, (entry) => {
      calls++;
      return decodeYamlMapByParser(entry);
    });
    return { calls, refused: false };
  } catch {
    return { calls, refused: true };
  }
}

describe('attack: a crafted metadata block stalls the world for every client', () => {
  let world: WorldFixture;
  before(async () => {
    world = await startWorldFixture();
  });
  after(() => world.close());

  for (const [shape, block] of Object.entries(refusedShapes)) {
    it(`${shape}: refused without the parser and answered bad-request`, async () => {
      assert.deepEqual(parserCalls(block), { calls: 0, refused: true });
      const answer = parseResponse(await world.raw(Buffer.from(`FETCH /health\n---\n${block}\n---\n`)));
      assert.equal(answer.status, 'bad-request');
      assert.match(text(answer), /bad request/);
    });
  }

  for (const [shape, block] of Object.entries(slowValidShapes)) {
    it(`${shape}: decoded without the parser`, () => {
      assert.deepEqual(parserCalls(block), { calls: 0, refused: false });
    });
  }

  it('still answers the health check after the attack', async () => {
    const health = await world.call('FETCH', '/health');
    assert.equal(health.status, 'ok');
  });
});
