import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTool } from '../../src/broker/mcp/run-tool.ts';
import { markExplore } from '../../src/broker/mcp/tools/explore.ts';
import { markFetch } from '../../src/broker/mcp/tools/fetch.ts';
import { maxBodyBytes } from '../../src/protocol/limits.ts';
import { MemorySession, toolContext } from '../broker/mcp/helpers/context.ts';
import { startTestStack, type TestStack } from '../broker/mcp/helpers/fixture-gateway.ts';

/**
 * Anyone who may publish can write a 1 MiB document of 262,000 headings, and every reader's
 * mark_fetch or mark_explore of it read (rendered, anchored and outlined) every one of them: about
 * a second of the broker's event loop per call (docs/benchmarks.md, "Markdown bounded per call").
 * The work a tool does is counted here by what it read: the headings in its answer. Two documents,
 * of 2x and 4x the bound, must cost the same: on the unbounded code they cost 2x and 4x.
 */
const bound = 10_000;

function headings(count: number): string {
  let body = '# Top\n\n';
  for (let i = 0; i < count; i++) body += `## h${i}\n`;
  return `${body}# End\n`;
}

type Outline = Array<{ anchor: string; lines: number }>;

describe('reader tools read a bounded number of headings per call', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack(['team-a']);
    await stack.seed('team-a', '/twice.md', headings(2 * bound));
    await stack.seed('team-a', '/four-times.md', headings(4 * bound));
    assert.ok(headings(4 * bound).length <= maxBodyBytes);
  });
  after(() => stack.close());

  const fetch = (url: string) =>
    runTool(markFetch, { url }, toolContext(stack.gateway, { session: new MemorySession() }));

  it('mark_fetch outlines the same number of headings for 20,000 and for 40,000, and says how many it left out', async () => {
    const twice = await fetch('mark://team-a/twice.md');
    const four = await fetch('mark://team-a/four-times.md');
    const twiceOutline = (twice.structured as { outline: Outline }).outline;
    const fourOutline = (four.structured as { outline: Outline }).outline;
    assert.equal(twiceOutline.length, fourOutline.length);
    assert.equal(fourOutline.length, bound);
    // The first heading's section still ends where `# End` stands, far past the bound.
    assert.equal(fourOutline[0]!.anchor, 'top');
    assert.equal(fourOutline[0]!.lines, 4 * bound + 2);
    assert.match(four.text, /\n\+30,002 more headings not read: the outline stops at the first 10,000\n/);
    assert.equal((four.structured as { headings_not_read?: number }).headings_not_read, 30_002);
    assert.equal(four.text.split('\n').filter((line) => line.startsWith('  - h')).length, bound - 1);
  });

  it('mark_explore counts every heading in its text, naming the bound, but lists the same number for both', async () => {
    const twice = await runTool(markExplore, { url: 'mark://team-a/twice.md' }, toolContext(stack.gateway));
    const four = await runTool(markExplore, { url: 'mark://team-a/four-times.md' }, toolContext(stack.gateway));
    assert.equal(
      (twice.structured as { outline: Outline }).outline.length,
      (four.structured as { outline: Outline }).outline.length,
    );
    // The headings read past the list, then the unread ones in mark_fetch's words, naming the bound.
    assert.match(
      four.text,
      /\n\+9,990 more headings\n\+30,002 more headings not read: the outline stops at the first 10,000\n/,
    );
    assert.equal((four.structured as { headings_not_read?: number }).headings_not_read, 30_002);
  });

  it('mark_fetch of a missing section lists the anchors read, not all 40,002', async () => {
    const missing = await fetch('mark://team-a/four-times.md#missing');
    assert.equal(missing.isError, true);
    const listed = /available anchors: (.*?)(?:; |$)/.exec(missing.text)![1]!.split(', ');
    assert.equal(listed.length, bound);
    assert.match(missing.text, /; 30,002 more headings not read/);
  });

  it('reads a section among the headings read, and refuses one past them, saying why', async () => {
    const read = await fetch(`mark://team-a/four-times.md#h${bound - 2}`);
    assert.equal(read.isError, undefined);
    assert.ok(read.text.endsWith(`\n\n## h${bound - 2}\n`));
    const past = await fetch(`mark://team-a/four-times.md#h${bound}`);
    assert.equal(past.isError, true);
    assert.match(past.text, /30,002 more headings not read: sections are read among the first 10,000/);
  });
});
