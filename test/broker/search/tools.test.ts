import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markSearch } from '../../../src/broker/mcp/tools/search.ts';
import { markLookupAll } from '../../../src/broker/mcp/tools/lookup-all.ts';
import { fitQuery, parseSearchText } from '../../../src/broker/search/index.ts';
import { toolContext } from '../mcp/helpers/context.ts';
import { startTestStack, type TestStack } from '../mcp/helpers/fixture-gateway.ts';

async function seed(stack: TestStack): Promise<void> {
  await stack.seed(
    'alpha',
    '/ops/rotation.md',
    '# Key rotation\n\nKeys rotate every night.\n\n## Audit\n\nEach rotation is logged with the token label.\n',
    { tags: 'ops' },
  );
  await stack.seed('beta', '/dev/deploy.md', '# Deploy\n\nThe deploy job ships the build to the fleet at night.\n');
  await stack.seed('gamma', '/ui/keyboard-nav.md', '# Keyboard navigation\n\nMove with the arrow keys.\n');
}

describe('mark_search over real worlds', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['alpha', 'beta', 'gamma']);
    await seed(stack);
  });
  after(() => stack.close());
  const search = (args: Record<string, unknown>) => runTool(markSearch, args, toolContext(stack.gateway));

  it('answers a question in plain words with one ranked row per document, on one scale', async () => {
    const result = await search({ query: 'how do the keys rotate at night?' });
    assert.equal(result.isError, undefined);
    assert.match(
      result.text,
      /^status: ok\nworlds: 3\nsucceeded: 3\nfailed: 0\nmatches: \d+\nranking: score\n\n# Search results for "how do the keys rotate at night\?" across readable worlds\n\n\| URL \| Score \| Title \| Snippet \|\n/,
    );
    const parsed = parseSearchText(result.text);
    assert.equal(parsed.hits[0]?.url, 'mark://alpha/ops/rotation.md#key-rotation');
    assert.equal(parsed.hits[0]?.snippet, 'Keys rotate every night.');
    const documents = parsed.hits.map((h) => h.url.split('#')[0]);
    assert.equal(new Set(documents).size, documents.length);
    assert.ok(documents.includes('mark://beta/dev/deploy.md'), 'a partial match from another world is ranked too');
    const scores = parsed.hits.map((h) => h.score ?? -1);
    assert.deepEqual(
      [...scores].sort((a, b) => b - a),
      scores,
    );
  });

  it('searches one world when asked, and refuses an unknown one', async () => {
    const one = parseSearchText((await search({ query: 'night', world: 'beta' })).text);
    assert.equal(one.worlds, 1);
    assert.deepEqual(
      one.hits.map((h) => h.url),
      ['mark://beta/dev/deploy.md#deploy'],
    );
    // World names compare lower-case, as in every mark:// URL; before, Beta was an unknown world here.
    assert.deepEqual(parseSearchText((await search({ query: 'night', world: 'Beta' })).text), one);
    const unknown = await search({ query: 'night', world: 'nowhere' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /unknown world "nowhere"/);
  });

  it('reads world in every form mark_worlds shows, as URL arguments are read', async () => {
    const one = parseSearchText((await search({ query: 'night', world: 'beta' })).text);
    const address = stack.gateway.get('beta')!.address;
    // Before, each of these was "unknown world" though mark_worlds says tools accept every form.
    for (const world of ['mark://beta/', 'mark://beta', 'MARK://Beta/', `mark://${address}`, address]) {
      const result = await search({ query: 'night', world });
      assert.equal(result.isError, undefined, `${world}: ${result.text}`);
      assert.deepEqual(parseSearchText(result.text), one, world);
    }
    // A folder is a scope, not a world; the refusal names the worlds there are.
    const folder = await search({ query: 'night', world: 'mark://beta/dev/' });
    assert.equal(folder.isError, true);
    assert.equal(
      folder.text,
      'broker: unknown world "mark://beta/dev/" (not in broker config; known worlds: alpha, beta, gamma)',
    );
  });

  it('takes a scope that names its world, in any address form, and refuses one that disagrees with world', async () => {
    const inDev = parseSearchText((await search({ query: 'night', world: 'beta', scope: '/dev/' })).text);
    assert.deepEqual(
      inDev.hits.map((h) => h.url),
      ['mark://beta/dev/deploy.md#deploy'],
    );
    const address = stack.gateway.get('beta')!.address;
    for (const args of [
      { scope: 'mark://beta/dev/' },
      { scope: `mark://${address}/dev/` },
      { scope: 'mark://beta/dev/', world: 'mark://beta/' },
    ]) {
      const result = await search({ query: 'night', ...args });
      assert.equal(result.isError, undefined, `${JSON.stringify(args)}: ${result.text}`);
      assert.deepEqual(parseSearchText(result.text), inDev, JSON.stringify(args));
    }
    assert.deepEqual(await search({ query: 'night', world: 'alpha', scope: 'mark://beta/dev/' }), {
      isError: true,
      text: 'scope "mark://beta/dev/" is in world "beta", but world is "alpha": leave world out, or give scope as a path such as /dev/',
    });
    assert.deepEqual(await search({ query: 'night', scope: 'mark://nowhere/dev/' }), {
      isError: true,
      text: 'broker: unknown world "nowhere" (not in broker config; known worlds: alpha, beta, gamma)',
    });
  });

  it('never dead-ends: nothing found names the nearest titles and how to browse', async () => {
    const result = await search({ query: 'kyeboard' });
    assert.equal(result.isError, undefined);
    assert.match(
      result.text,
      /\nmatches: 0\n\n# No document matches "kyeboard" in readable worlds\n\n## Nearest titles\n\n\| URL \| Title \|\n\|-----\|-------\|\n\| mark:\/\/gamma\/ui\/keyboard-nav\.md \| Keyboard navigation \|\n/,
    );
    assert.match(result.text, /\nbrowse instead: mark_lookup_all with query '\*'/);
  });

  it('suggests no document the broker generated unless include_generated asks for them', async () => {
    await stack.seed('alpha', '/graph.md', '# Document Graph\n\n> Exported: 2026-01-08T12:00:00Z\n');
    const suggested = async (args: Record<string, unknown>) =>
      parseSearchText((await search({ query: 'grapf', ...args })).text).nearest.map((n) => n.url);
    assert.deepEqual(await suggested({}), []);
    assert.deepEqual(await suggested({ include_generated: true }), ['mark://alpha/graph.md']);
  });

  it('refuses a too-short query, a star query and a bad limit before asking any world', async () => {
    const before = stack.gateway.sent.length;
    for (const [args, message] of [
      [{ query: 'x' }, /^query must be at least 2 characters$/],
      [{ query: '*' }, /use mark_lookup_all/],
      // Trimmed as the worlds trim (Go strings.TrimSpace): U+0085 is white space there, not in JavaScript's trim().
      [{ query: '\u0085x\u0085' }, /^query must be at least 2 characters$/],
      [{ query: '\u0085*' }, /use mark_lookup_all/],
      [{ query: 'night', limit: 0 }, /^limit must be between 1 and 100$/],
      [{ query: 'night', scope: 'docs' }, /^invalid scope: /],
    ] as const) {
      const result = await search(args);
      assert.equal(result.isError, true);
      assert.match(result.text, message);
    }
    assert.equal(stack.gateway.sent.length, before);
  });

  it('reduces a question of more than 32 words to its search terms instead of failing', async () => {
    const long = `${Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ')} rotation`;
    const fitted = fitQuery(long);
    assert.ok('query' in fitted && fitted.query.split(' ').length <= 32);
    assert.deepEqual(fitQuery('short question'), { query: 'short question' });
    const result = await search({ query: long });
    assert.equal(result.isError, undefined, result.text);
  });

  it('counts the words of a question as the worlds do, so words joined by U+0085 are reduced too', async () => {
    // Go's unicode.IsSpace counts U+0085 (NEL) as white space and JavaScript's \s does not:
    // the broker saw one word where each world saw 41, sent the question unreduced,
    // and every world refused it with "query has too many terms: 33 > 32".
    const long = ['rotation', ...Array.from({ length: 40 }, (_, i) => `word${i}`)].join('\u0085');
    const result = await search({ query: long });
    assert.equal(result.isError, undefined, result.text);
    assert.equal(parseSearchText(result.text).hits[0]?.url, 'mark://alpha/ops/rotation.md#key-rotation');
  });

  it('refuses a question of more than 32 words that keeps no searchable word, before asking any world', async () => {
    // Reduced to its search terms, such a question was empty (or one CJK character), and every
    // world refused it with "query must be at least 2 characters", which the question was not.
    const before = stack.gateway.sent.length;
    const punctuation = Array.from({ length: 40 }, (_, i) => '!'.repeat(i + 2)).join(' ');
    assert.deepEqual(await search({ query: punctuation }), {
      isError: true,
      text:
        'query has more than 32 distinct words, more than a world accepts, and none of them is searchable ' +
        '(punctuation, single letters or digits, and words longer than 32 bytes are not searched); ' +
        'ask again with at least one word of 2 or more letters or digits',
    });
    assert.deepEqual(await search({ query: `${punctuation} 中` }), {
      isError: true,
      text:
        'query has more than 32 distinct words, more than a world accepts, and its only searchable word, "中", ' +
        'is shorter than the 2 characters a world accepts ' +
        '(punctuation, single letters or digits, and words longer than 32 bytes are not searched); ' +
        'ask again with at least one word of 2 or more letters or digits',
    });
    assert.equal(stack.gateway.sent.length, before);
    // Up to 32 words the question goes whole, as the worlds accept it, and finds nothing.
    const short = await search({ query: '!! ??' });
    assert.equal(short.isError, undefined, short.text);
    assert.equal(parseSearchText(short.text).hits.length, 0);
  });
});

describe('mark_search with a world down', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['alpha', 'beta', 'gamma']);
    await seed(stack);
    await stack.worlds.beta!.server.close();
  });
  after(() => stack.close());

  it("answers partial with the failure beside the other worlds' rows", async () => {
    const result = await runTool(markSearch, { query: 'keys at night' }, toolContext(stack.gateway));
    const parsed = parseSearchText(result.text);
    assert.equal(parsed.status, 'partial');
    assert.deepEqual(
      parsed.failed.map((f) => f.world),
      ['beta'],
    );
    assert.ok(parsed.hits.length > 0);
    assert.ok(parsed.hits.every((h) => !h.url.startsWith('mark://beta/')));
  });
});

describe('mark_lookup_all with match: body', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['alpha', 'beta', 'gamma']);
    await seed(stack);
  });
  after(() => stack.close());

  it('merges section rows of every world, each holding every term, on one scale', async () => {
    const result = await runTool(markLookupAll, { query: 'night', match: 'body' }, toolContext(stack.gateway));
    assert.ok(
      result.text.startsWith(
        'status: ok\nworlds: 3\nsucceeded: 3\nfailed: 0\nmatches: 2\nmatch: body\nranking: score\n\n# Lookup matches for "night" across readable worlds\n\n' +
          '| Path | Importance | Title | Tags | Snippet |\n|------|------------|-------|------|---------|\n',
      ),
      result.text,
    );
    const rows = result.text.split('|---------|\n')[1]!.trim().split('\n');
    assert.deepEqual(rows.map((r) => r.split(' | ')[0]).sort(), [
      '| mark://alpha/ops/rotation.md#key-rotation',
      '| mark://beta/dev/deploy.md#deploy',
    ]);
    const strict = await runTool(markLookupAll, { query: 'night fleet', match: 'body' }, toolContext(stack.gateway));
    assert.match(
      strict.text,
      /\nmatches: 1\n[\s\S]*\| mark:\/\/beta\/dev\/deploy\.md#deploy \| 0\.50 \| Deploy › Deploy \| {2}\| The deploy job ships the build to the fleet at night\. \|\n$/,
    );
  });

  it('keeps the catalog answer unchanged without match', async () => {
    const result = await runTool(markLookupAll, { query: 'ops' }, toolContext(stack.gateway));
    assert.match(
      result.text,
      /^status: ok\nworlds: 3\nsucceeded: 3\nfailed: 0\nmatches: 1\n\n# Lookup matches for "ops" across readable worlds\n\n\| Path \| Importance \| Title \| Tags \|\n/,
    );
  });

  it("refuses query '*' in body mode, which no text matches, and says how to list documents", async () => {
    const before = stack.gateway.sent.length;
    const result = await runTool(markLookupAll, { query: ' * ', match: 'body' }, toolContext(stack.gateway));
    assert.deepEqual(result, {
      isError: true,
      text: "query '*' matches no text with match=body; leave match out (catalog) to list every catalogued document",
    });
    assert.equal(stack.gateway.sent.length, before);
  });

  it('refuses an unknown match mode', async () => {
    const result = await runTool(markLookupAll, { query: 'night', match: 'fuzzy' }, toolContext(stack.gateway));
    assert.deepEqual(result, { isError: true, text: 'match must be "catalog" or "body"' });
  });
});
