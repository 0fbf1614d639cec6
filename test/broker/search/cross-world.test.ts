import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type SearchOutcome, type SearchWorldsRequest, searchWorlds } from '../../../src/broker/search/index.ts';
import { startTestStack, type TestStack } from '../mcp/helpers/fixture-gateway.ts';

/** The same documents, split over three worlds or all in one. */
const docs: [string, string, string][] = [
  ['/rotation.md', '# Token rotation\n\nKeys rotate every day; the rotation job signs new tokens.\n', 'alpha'],
  ['/sessions.md', '# Sessions\n\nA session lasts an hour. Tokens are checked on every call.\n', 'alpha'],
  ['/deploy.md', '# Deploy\n\nThe deploy job ships the build to the fleet.\n', 'beta'],
  ['/audit.md', '# Audit\n\nEvery write is logged with the token label.\n', 'beta'],
  ['/glossary.md', '# Glossary\n\nRotation: replacing keys. Fleet: every server.\n', 'gamma'],
  ['/notes.md', '# Notes\n\nPlain words about nothing in particular.\n', 'gamma'],
];

const splitWorlds = ['alpha', 'beta', 'gamma'];

/** searchWorlds over `stack`'s real worlds, under the whole tree and with any term unless the request says otherwise. */
function search(
  stack: TestStack,
  request: Pick<SearchWorldsRequest, 'worlds' | 'query' | 'limit'> & Partial<SearchWorldsRequest>,
): Promise<SearchOutcome> {
  return searchWorlds((world, call) => stack.gateway.read(world, call), { scope: '/', terms: 'any', ...request });
}

describe('cross-world search over real worlds', () => {
  let split: TestStack;
  let union: TestStack;
  before(async () => {
    [split, union] = await Promise.all([startTestStack(splitWorlds), startTestStack(['all'])]);
    for (const [path, body, world] of docs) {
      await split.seed(world, path, body);
      await union.seed('all', path, body);
    }
  });
  after(async () => {
    await split.close();
    await union.close();
  });

  it('scores every row exactly as one world holding all the documents would', async () => {
    const request = { query: 'rotate tokens fleet', limit: 20 };
    const merged = await search(split, { ...request, worlds: splitWorlds });
    const single = await search(union, { ...request, worlds: ['all'] });
    assert.equal(merged.ranking, 'score');
    const key = (r: { path: string; anchor: string; score?: number }) => `${r.path}#${r.anchor} ${r.score?.toFixed(4)}`;
    assert.ok(merged.rows.length >= 4);
    assert.deepEqual(merged.rows.map(key), single.rows.map(key));
    assert.deepEqual(new Set(merged.rows.map((r) => r.world)), new Set(['alpha', 'beta', 'gamma']));
  });

  it('puts the world with the most of the question first, whichever world is asked first', async () => {
    const outcome = await search(split, {
      worlds: ['gamma', 'beta', 'alpha'],
      query: 'rotation job signs tokens',
      limit: 3,
    });
    assert.equal(outcome.rows[0]?.world, 'alpha');
    assert.equal(outcome.rows[0]?.path, '/rotation.md');
  });

  it('requires every term in every row under the Go `bodymatch.go` rule, across worlds', async () => {
    const outcome = await search(split, {
      worlds: splitWorlds,
      query: 'rotation fleet',
      limit: 10,
      terms: 'all',
    });
    assert.deepEqual(
      outcome.rows.map((r) => `${r.world}:${r.path}`),
      ['gamma:/glossary.md'],
    );
    const relaxed = await search(split, {
      worlds: splitWorlds,
      query: 'rotation fleet',
      limit: 10,
      terms: 'any',
    });
    assert.ok(relaxed.rows.some((r) => r.path === '/rotation.md') && relaxed.rows.some((r) => r.path === '/deploy.md'));
  });

  it('answers one row per document when asked, keeping the best section', async () => {
    const outcome = await search(split, {
      worlds: splitWorlds,
      query: 'tokens',
      limit: 10,
      onePerDocument: true,
    });
    const documents = outcome.rows.map((r) => `${r.world}:${r.path}`);
    assert.equal(new Set(documents).size, documents.length);
  });

  it('suggests the nearest titles of every world when nothing matches', async () => {
    const outcome = await search(split, {
      worlds: splitWorlds,
      query: 'glosary',
      limit: 10,
      nearest: 3,
    });
    assert.deepEqual(outcome.rows, []);
    assert.equal(outcome.nearest[0]?.world, 'gamma');
    assert.equal(outcome.nearest[0]?.path, '/glossary.md');
  });

  it('reports a stopped world beside the rows of the others', async () => {
    const partial = await startTestStack(['up', 'down']);
    try {
      await partial.seed('up', '/a.md', '# Alpha\n\nrotation of keys\n');
      await partial.worlds.down!.server.close();
      const outcome = await search(partial, {
        worlds: ['down', 'up'],
        query: 'rotation',
        limit: 5,
      });
      assert.deepEqual(
        outcome.rows.map((r) => `${r.world}:${r.path}`),
        ['up:/a.md'],
      );
      assert.deepEqual(
        outcome.failures.map((f) => f.world),
        ['down'],
      );
      assert.deepEqual(outcome.succeeded, ['up']);
    } finally {
      await partial.close();
    }
  });
});
