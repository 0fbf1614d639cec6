/**
 * Threat: documents full of links stall the broker for every caller. Each
 * document a mark_graph crawl reads (up to 200 per call, src/broker/graph/
 * crawler.ts) and each change a world reports goes through documentLinks →
 * linksAndHeadings, synchronously on the event loop.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it: the child was killed at the bound, with no answer). The link scan gave
 * each link its line number by searching for the next newline again from the
 * last one passed, so on one long line every link read the rest of the line:
 * a 1 MiB paragraph of `[](a)` (209,510 links) took 6.6 to 7.6 s to parse
 * where the same scan with the newline remembered takes under 1.5 s on the same
 * loaded machine, and a crawl of 200 such documents held the broker for more
 * than twenty minutes.
 *
 * Not a timing threshold: the twenty parses a crawl of twenty such documents
 * makes run in a child killed only if it has not finished after 60 s
 * (test/support/run-in-child.ts). On the reviewer's loaded 2-core machine the
 * fixed scan finished them in 10 s; the quadratic one had not after 60 s. The
 * child returns what it parsed, so the answer is checked too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxBodyBytes } from '../../src/protocol/limits.ts';
import { runInChild } from '../support/run-in-child.ts';

const markdown = new URL('../../src/markdown/index.ts', import.meta.url);

describe('security: link line numbers take time linear in the document', () => {
  it('twenty 1 MiB paragraphs of links, through linksAndHeadings', async () => {
    const parsed = await runInChild(
      { m: markdown },
      `const body = '# Links\\n\\n' + fill('[](a)');
let links = 0;
const anchors = new Set();
for (let k = 0; k < 20; k++) {
  const found = m.linksAndHeadings(body).links;
  links += found.length;
  for (const link of found) anchors.add(link.anchor);
}
// Line numbers decide each link's section: in a list item, links above and below a heading.
const small = m.linksAndHeadings('- [](d)\\n  ## Item\\n  [](e) [](f)\\n').links.map((link) => [link.dest, link.anchor]);
return [links, [...anchors], small];`,
    );
    const perDocument = Math.floor((maxBodyBytes - 1024) / '[](a)'.length);
    assert.deepEqual(parsed, [
      20 * perDocument,
      ['links'],
      [
        ['d', ''],
        ['e', 'item'],
        ['f', 'item'],
      ],
    ]);
  });
});
