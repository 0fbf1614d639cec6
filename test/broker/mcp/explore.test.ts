import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markExplore } from '../../../src/broker/mcp/tools/explore.ts';
import type { GraphService } from '../../../src/broker/mcp/definitions.ts';
import type { BacklinkEntry } from '../../../src/broker/graph/index.ts';
import { toolContext } from './helpers/context.ts';
import { startTestStack, type TestStack } from './helpers/fixture-gateway.ts';
import { MemoryGateway } from './helpers/memory-gateway.ts';

const guide = [
  '# Guide',
  '',
  'What this guide covers, in one paragraph.',
  '',
  '## Setup',
  '',
  'See [the runbook](runbook.md#start), [notes](mark://team-b/notes.md) and [again](runbook.md).',
  '',
  '```',
  '[not a link](code.md)',
  '```',
  '',
  '## Use',
  '',
  'Done.',
  '',
].join('\n');

describe('mark_explore against a real world', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a']);
    await stack.seed('team-a', '/docs/guide.md', guide);
    await stack.seed('team-a', '/docs/runbook.md', '# Runbook\n');
    await stack.seed('team-a', '/docs/sub/deep.md', '# Deep\n');
  });
  after(() => stack.close());

  it('renders the card: outline, opening, deduplicated outbound links, no backlinks, siblings without itself', async () => {
    const result = await runTool(markExplore, { url: 'mark://team-a/docs/guide.md#setup' }, toolContext(stack.gateway));
    const body = result.text.slice(result.text.indexOf('\n\n') + 2);
    assert.equal(
      body,
      [
        '## Outline',
        '- Guide (#guide, 15 lines)',
        '  - Setup (#setup, 8 lines)',
        '  - Use (#use, 3 lines)',
        '',
        '## Opening',
        'What this guide covers, in one paragraph.',
        '',
        '## Outbound links (2)',
        '- [the runbook](runbook.md)',
        '- [notes](mark://team-b/notes.md)',
        '',
        '## Backlinks (0)',
        "(none recorded; run mark_graph to populate; the broker's graph store is per-pod and resets on restart)",
        '',
        '## Siblings in /docs/ (2)',
        '- runbook.md',
        '- sub/',
        '',
        'fetch mark://team-a/docs/guide.md#<anchor> for a section; mark_fetch force=true for the full body',
        '',
      ].join('\n'),
    );
    assert.match(result.text, /^status: ok\nversion: 1\nmodified: \S+\netag: [0-9a-f]{64}\n/);
    assert.match(result.text, /\nsize: \d+ bytes, 16 lines\n/);
  });

  it('caps each list of the text at 10 and gives every heading and link in structuredContent, as its description says', async () => {
    // Before, the description said "each list capped at 10", which the structured answer is not.
    const many = Array.from({ length: 12 }, (_, i) => `## Part ${i}\n\n[link ${i}](p${i}.md)\n`).join('\n');
    await stack.seed('team-a', '/long/many.md', `# Many\n\n${many}`);
    const result = await runTool(markExplore, { url: 'mark://team-a/long/many.md' }, toolContext(stack.gateway));
    assert.match(result.text, /\n\+3 more headings\n/);
    assert.match(result.text, /\n\+2 more links\n/);
    const data = result.structured as { outline: unknown[]; links: unknown[] };
    assert.equal(data.outline.length, 13);
    assert.equal(data.links.length, 12);
    assert.doesNotMatch(markExplore.description, /each list capped at 10/);
    assert.match(markExplore.description, /each list in the text shows at most 10 entries/i);
    assert.match(markExplore.description, /structuredContent carries every heading and outbound link/);
  });

  it('lists backlinks from the graph service when the broker has one', async () => {
    const asked: string[] = [];
    const graph = {
      async seed() {},
      // The graph service's read check is its own (test/security/graph-rights.test.ts); this stub is past it.
      async readableBacklinks(url: string): Promise<{ entries: BacklinkEntry[]; unchecked: number }> {
        asked.push(url);
        const entries: BacklinkEntry[] = [
          {
            url: 'mark://team-a/docs/runbook.md',
            title: 'Runbook',
            status: 'ok',
            rel: 'supersedes',
            label: '',
            anchor: '',
            count: 1,
            provenance: 'crawl',
          },
          {
            url: 'mark://team-b/notes.md',
            title: '',
            status: 'ok',
            rel: '',
            label: '',
            anchor: '',
            count: 1,
            provenance: 'seed',
          },
        ];
        return { entries, unchecked: 0 };
      },
    } as Partial<GraphService> as GraphService;
    const result = await runTool(
      markExplore,
      { url: 'mark://team-a/docs/guide.md' },
      toolContext(stack.gateway, { graph }),
    );
    assert.deepEqual(asked, ['mark://team-a/docs/guide.md']);
    assert.match(
      result.text,
      /\n## Backlinks \(2\)\n- \[Runbook\]\(mark:\/\/team-a\/docs\/runbook\.md\) \[supersedes\]\n- mark:\/\/team-b\/notes\.md\n/,
    );
  });

  it('says none are recorded when the graph cannot be seeded', async () => {
    const graph = {
      seed: () => Promise.reject(new Error('hub unreachable')),
    } as Partial<GraphService> as GraphService;
    const result = await runTool(
      markExplore,
      { url: 'mark://team-a/docs/guide.md' },
      toolContext(stack.gateway, { graph }),
    );
    assert.match(result.text, /\n## Backlinks \(0\)\n\(none recorded; /);
  });

  it('returns a world status unchanged for a missing document', async () => {
    const result = await runTool(markExplore, { url: 'mark://team-a/docs/none.md' }, toolContext(stack.gateway));
    assert.equal(result.isError, undefined);
    assert.match(result.text, /^status: not-found\n/);
  });
});

describe('mark_explore on content that is not markdown (pure rule)', () => {
  it('returns a binary notice with mode: binary instead of an outline', async () => {
    const gateway = new MemoryGateway({
      w: () => ({ status: 'ok', metadata: { version: '1' }, body: new Uint8Array([0xff, 0x00, 0x41]) }),
    });
    const result = await runTool(markExplore, { url: 'mark://w/blob.md' }, toolContext(gateway));
    assert.equal(
      result.text,
      'status: ok\nversion: 1\nmode: binary\n\nnot a markdown document (3 bytes of binary or non-UTF-8 content); no outline or links to show\n',
    );
  });
});
