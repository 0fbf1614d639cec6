import { after, before, describe, it } from 'node:test';
import { worldFanOut } from '../../../src/broker/fan-out.ts';
import assert from 'node:assert/strict';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markLookupAll } from '../../../src/broker/mcp/tools/lookup-all.ts';
import { toolContext } from './helpers/context.ts';
import { startTestStack, type TestStack } from './helpers/fixture-gateway.ts';
import { MemoryGateway, response } from './helpers/memory-gateway.ts';

const header = '| Path | Importance | Title | Tags |\n|------|------------|-------|------|\n';

async function seedWorlds(stack: TestStack): Promise<void> {
  await stack.seed('alpha', '/a1.md', '# A1\n', { tags: 'deploy', importance: '0.9' });
  await stack.seed('alpha', '/a2.md', '# A2\n', { tags: 'deploy', importance: '0.2' });
  await stack.seed('beta', '/b1.md', '# B1 | pipes\n', { tags: 'deploy,ops', importance: '0.5' });
  await stack.seed('gamma', '/g1.md', '# G1\n', { tags: 'deploy', importance: '0.9' });
}

describe('mark_lookup_all across real worlds', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['alpha', 'beta', 'gamma']);
    await seedWorlds(stack);
  });
  after(() => stack.close());

  it("merges by each world's rank first, then importance, world and path, into one table", async () => {
    const result = await runTool(markLookupAll, { query: 'deploy' }, toolContext(stack.gateway));
    assert.equal(
      result.text,
      'status: ok\nworlds: 3\nsucceeded: 3\nfailed: 0\nmatches: 4\n\n# Lookup matches for "deploy" across readable worlds\n\n' +
        header +
        '| mark://alpha/a1.md | 0.90 | A1 | deploy |\n' +
        '| mark://gamma/g1.md | 0.90 | G1 | deploy |\n' +
        '| mark://beta/b1.md | 0.50 | B1 \\| pipes | deploy, ops |\n' +
        '| mark://alpha/a2.md | 0.20 | A2 | deploy |\n',
    );
  });

  it('applies the limit to the merged table, not per world only', async () => {
    const result = await runTool(markLookupAll, { query: 'deploy', limit: 2 }, toolContext(stack.gateway));
    assert.match(result.text, /\nmatches: 2\n/);
    assert.ok(
      result.text.endsWith(
        '| mark://alpha/a1.md | 0.90 | A1 | deploy |\n| mark://gamma/g1.md | 0.90 | G1 | deploy |\n',
      ),
    );
  });

  it('refuses a limit below 1 and an invalid scope before asking any world', async () => {
    const before = stack.gateway.sent.length;
    assert.deepEqual(await runTool(markLookupAll, { query: 'deploy', limit: 0 }, toolContext(stack.gateway)), {
      isError: true,
      text: 'limit must be at least 1',
    });
    const scope = await runTool(markLookupAll, { query: 'deploy', scope: 'docs' }, toolContext(stack.gateway));
    assert.equal(scope.isError, true);
    assert.match(scope.text, /^invalid scope: /);
    assert.equal(stack.gateway.sent.length, before);
  });

  it('is a tool error when every world refuses, naming each world and its answer', async () => {
    const result = await runTool(markLookupAll, { query: 'deploy', filter: 'tag' }, toolContext(stack.gateway));
    assert.equal(result.isError, true);
    assert.equal(
      result.text,
      'lookup failed in all worlds: ' +
        ['alpha', 'beta', 'gamma']
          .map((w) => `${w}: status bad-request: # Bad request malformed filter clause "tag"`)
          .join('; '),
    );
  });

  it('refuses a query the worlds would refuse as too short, by their own rule, before asking any world', async () => {
    // Before, every world was asked and the agent read "lookup failed in all worlds: alpha: status bad-request: …".
    const before = stack.gateway.sent.length;
    for (const query of ['x', '  ', '\u0085x\u0085']) {
      for (const match of ['catalog', 'body'] as const) {
        assert.deepEqual(await runTool(markLookupAll, { query, match }, toolContext(stack.gateway)), {
          isError: true,
          text: 'query must be at least 2 characters',
        });
      }
    }
    assert.equal(stack.gateway.sent.length, before);
  });
});

describe('mark_lookup_all with one world stopped', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['alpha', 'beta', 'gamma']);
    await seedWorlds(stack);
    await stack.worlds.gamma!.server.close();
  });
  after(() => stack.close());

  it("answers partial with the other worlds' rows and a failures table, not a tool error", async () => {
    const result = await runTool(markLookupAll, { query: 'deploy' }, toolContext(stack.gateway));
    assert.equal(result.isError, undefined);
    assert.equal(
      result.text,
      'status: partial\nworlds: 3\nsucceeded: 2\nfailed: 1\nmatches: 3\n\n# Lookup matches for "deploy" across readable worlds\n\n' +
        header +
        '| mark://alpha/a1.md | 0.90 | A1 | deploy |\n' +
        '| mark://beta/b1.md | 0.50 | B1 \\| pipes | deploy, ops |\n' +
        '| mark://alpha/a2.md | 0.20 | A2 | deploy |\n' +
        '\n## World failures\n\n| World | Error |\n|-------|-------|\n' +
        '| gamma | world gamma is unavailable |\n',
    );
  });
});

describe('mark_lookup_all table reading (pure rules)', () => {
  const table = (rows: string, matches: string) =>
    response('ok', { matches }, `\n# Lookup matches for "qq" in /\n\n${header}${rows}`);

  it('counts a world whose table disagrees with its matches count as failed', async () => {
    const gateway = new MemoryGateway({
      good: () => table('| /ok.md | 0.50 | Ok | t |\n', '1'),
      liar: () => table('| /x.md | 0.50 | X | t |\n', '2'),
      bad: () => table('| /y.md | 1.50 | Y | t |\n', '1'),
      relative: () => table('| y.md | 0.50 | Y | t |\n', '1'),
    });
    const result = await runTool(markLookupAll, { query: 'qq' }, toolContext(gateway));
    assert.match(result.text, /^status: partial\nworlds: 4\nsucceeded: 1\nfailed: 3\nmatches: 1\n/);
    assert.ok(
      result.text.endsWith(
        '| bad | malformed LOOKUP response: invalid importance "1.50" |\n' +
          '| liar | malformed LOOKUP response: matches metadata does not match table |\n' +
          '| relative | malformed LOOKUP response: invalid path "y.md" |\n',
      ),
    );
  });

  it('reads escaped pipes and brackets inside cells back to their text', async () => {
    const gateway = new MemoryGateway({ w: () => table('| /a\\_b.md | 0.25 | T \\| \\[x\\] | a, b |\n', '1') });
    const result = await runTool(markLookupAll, { query: 'qq' }, toolContext(gateway));
    assert.ok(result.text.endsWith('| mark://w/a\\_b.md | 0.25 | T \\| \\[x\\] | a, b |\n'));
  });

  it(`asks at most ${worldFanOut} worlds at once, and every world in the end`, async () => {
    let inFlight = 0;
    let peak = 0;
    const slow = async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return table('', '0');
    };
    const gateway = new MemoryGateway(
      Object.fromEntries(Array.from({ length: worldFanOut + 4 }, (_, i) => [`w${String(i).padStart(3, '0')}`, slow])),
    );
    const result = await runTool(markLookupAll, { query: 'qq' }, toolContext(gateway));
    assert.equal(peak, worldFanOut);
    assert.equal(gateway.calls.length, worldFanOut + 4);
    assert.match(result.text, new RegExp(`^status: ok\nworlds: ${worldFanOut + 4}\nsucceeded: ${worldFanOut + 4}\n`));
  });

  it('asks every world with the merged limit as its own limit, and brings one above the maximum down to it', async () => {
    // As the Go broker does (mark_lookup_all clamps above 1000); it used to be refused.
    const gateway = new MemoryGateway({ w: () => table('', '0') });
    await runTool(markLookupAll, { query: 'qq', limit: 5000 }, toolContext(gateway));
    assert.deepEqual(gateway.calls[0]?.metadata, { query: 'qq', limit: '1000' });
    await runTool(markLookupAll, { query: 'qq', limit: 1000, filter: 'tag=a', scope: '/docs' }, toolContext(gateway));
    assert.deepEqual(gateway.calls[1]?.metadata, { query: 'qq', limit: '1000', filter: 'tag=a' });
    assert.equal(gateway.calls[1]?.path, '/docs');
    const merged = await runTool(markLookupAll, { query: 'qq', limit: 1001 }, toolContext(gateway));
    assert.equal(merged.isError, undefined);
  });
});
