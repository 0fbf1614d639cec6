/**
 * Threat: one document stalls a world or the broker for every caller. The
 * world parses each body at PUBLISH for its body index (splitSections →
 * markdownBlocks, headingsOf → plainText, stripInline); the broker parses every
 * watched change for the link graph (documentLinks → linksAndHeadings) and
 * every mark_fetch outline (outlineEntries). All of it runs synchronously on
 * the event loop, and a body may be 1 MiB (src/protocol/limits.ts).
 *
 * Every attack below succeeded before the fix (checked by running this file
 * against it: each child was killed at the bound, with no answer). A reviewer
 * measured on 100,000 characters: an ATX heading with a long run of spaces
 * 8 s per regular expression (lazy `.*?` before `[ \t]*$`), a heading of
 * unclosed `[` 30.9 s in plainText's link patterns, `<!--` without `-->`
 * 4.6 s in the link scan (one indexOf to the end per `<!--`), 25,000
 * headings 6.9 s in outlineEntries (the rest of the heading list copied per
 * heading); a world's PUBLISH of a 50 KB heading took 8.3 s and 13 s. The
 * audit that followed found the same class in a paragraph of spaces joined
 * into plain text (`[ \t]*\n[ \t]*`), a line terminator after a fence or ATX
 * opening (`.*$` retried for every split of the run before it), a setext
 * underline under a paragraph with a `|` line (every earlier line re-read per
 * underline), and six of the search index's stripping patterns (src/search/
 * markup.ts: images, links, wiki links, comments, tags and autolinks never
 * closed). The inputs here are 1 MiB, where the quadratic scans need minutes.
 *
 * Not a timing threshold: each parse runs in a child killed only if it has
 * not finished after 60 s (test/support/run-in-child.ts). Each child returns
 * what it parsed, so the test also checks the answer is the one the slow code
 * would have given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxBodyBytes } from '../../src/protocol/limits.ts';
import { runInChild } from '../support/run-in-child.ts';

const markdown = new URL('../../src/markdown/index.ts', import.meta.url);
const search = new URL('../../src/search/index.ts', import.meta.url);
const worldFixture = new URL('../world/world-fixture.ts', import.meta.url);

/** `body` in a child killed after 60 s, with src/markdown as `m` and src/search as `s`. */
const parseInChild = (body: string) => runInChild({ m: markdown, s: search }, body);

/** How many times `fill(unit, room)` repeats `unit` (test/support/run-in-child.ts). */
const filled = (unit: string, room = 1024) => Math.floor((maxBodyBytes - room) / unit.length);

/**
 * PUBLISHes `bodyExpression` (evaluated in the child) to a real world, then asks it for `needle` by
 * LOOKUP `match: body`: the status of the PUBLISH and the number of matches.
 */
const publishInChild = (bodyExpression: string) =>
  runInChild(
    { fx: worldFixture },
    `const world = await fx.startWorldFixture();
try {
  const published = await world.local('PUBLISH', '/crafted.md', { auth: world.tokens.writer }, ${bodyExpression});
  const found = await world.local('LOOKUP', '/', { query: 'needle', match: 'body' });
  return [published.status, found.metadata.matches];
} finally {
  await world.close();
}`,
  );

describe('markdown parsing takes time linear in the document (each in a child killed after 60 s)', () => {
  it('an ATX heading with a long run of spaces inside it', async () => {
    const blocks = await parseInChild(`const spaces = fill(' ');
return m.markdownBlocks('# x' + spaces + 'y').blocks.map((b) => [b.kind, b.level, b.source === 'x' + spaces + 'y']);`);
    assert.deepEqual(blocks, [['heading', 1, true]]);
  });

  it('an ATX heading with a long run of tabs before its closing sequence', async () => {
    const blocks = await parseInChild(
      `return m.markdownBlocks('## x' + fill('\\t') + '##').blocks.map((b) => [b.kind, b.level, b.source]);`,
    );
    assert.deepEqual(blocks, [['heading', 2, 'x']]);
  });

  // A mid-line U+2028 or CR fails the `$` of both patterns: these lines never were a heading or a fence.
  it('an ATX opening followed by a long run of spaces and a line terminator', async () => {
    const kinds = await parseInChild(
      `return m.markdownBlocks('#' + fill(' ') + 'x\\u2028').blocks.map((b) => b.kind);`,
    );
    assert.deepEqual(kinds, ['paragraph']);
  });

  it('a fence opening of a long run of tildes followed by a line terminator', async () => {
    const kinds = await parseInChild(`return m.markdownBlocks(fill('~') + '\\r x').blocks.map((b) => b.kind);`);
    assert.deepEqual(kinds, ['paragraph']);
  });

  for (const unit of ['[', '![', '<!--'])
    it(`a heading of ${JSON.stringify(unit)} never closed, through outline`, async () => {
      const headings = await parseInChild(`const run = fill(${JSON.stringify(unit)});
return m.outline('# ' + run).map((h) => [h.level, h.text === run]);`);
      assert.deepEqual(headings, [[1, true]]);
    });

  it('a setext heading of unclosed brackets', async () => {
    const headings = await parseInChild(`const run = fill('[');
return m.outline(run + '\\n===\\n').map((h) => [h.level, h.text === run]);`);
    assert.deepEqual(headings, [[1, true]]);
  });

  it('plainText of unclosed brackets with escapes, and of a long run of spaces', async () => {
    const texts = await parseInChild(`const spaces = fill(' ');
return [m.plainText(fill('[\\\\')).length, m.plainText('a' + spaces + 'b') === 'a' + spaces + 'b'];`);
    // `\[` renders as `[`; the last backslash escapes nothing and stays.
    assert.deepEqual(texts, [filled('[\\') + 1, true]);
  });

  it('a paragraph of comment openings without a close, through linksAndHeadings', async () => {
    const links = await parseInChild(
      `return m.linksAndHeadings('x ' + fill('<!--') + ' [a](a.md)').links.map((l) => [l.dest, l.label]);`,
    );
    assert.deepEqual(links, [['a.md', 'a']]);
  });

  it('a quarter of a million headings, through outlineEntries', async () => {
    const entries = await parseInChild(`const entries = m.outlineEntries(fill('# a\\n'));
return [entries.length, entries.at(-2).anchor, entries.at(-2).endLine - entries.at(-2).line, entries.at(-1).lineCount];`);
    const count = filled('# a\n');
    assert.deepEqual(entries, [count, `a-${count - 2}`, 1, 1]);
  });

  it('setext underlines under a paragraph that holds a table row', async () => {
    const blocks =
      await parseInChild(`const body = fill('a\\n', ${maxBodyBytes / 2}) + '|\\n' + fill('===\\n', ${maxBodyBytes / 2 + 1024});
return m.markdownBlocks(body).blocks.map((b) => [b.kind, b.lines.length]);`);
    // A paragraph with a `|` line is a table, never a setext heading: every line stays in it.
    assert.deepEqual(blocks, [
      ['paragraph', filled('a\n', maxBodyBytes / 2) + 1 + filled('===\n', maxBodyBytes / 2 + 1024)],
    ]);
  });

  for (const unit of ['![', '[', '[[', '<!--', '<a', '<http:'])
    it(`the search index's sections of a line of ${JSON.stringify(unit)} never closed`, async () => {
      const sections = await parseInChild(`const line = 'x ' + fill(${JSON.stringify(unit)});
return s.splitSections('# T\\n\\n' + line + '\\n').map((x) => [x.anchor, x.text === line]);`);
      assert.deepEqual(sections, [['t', true]]);
    });

  it("a world's PUBLISH of an ATX heading with a long run of spaces", async () => {
    assert.deepEqual(await publishInChild(`'# x' + fill(' ') + 'y\\n\\nneedle\\n'`), ['created', '1']);
  });

  it("a world's PUBLISH of a heading of unclosed brackets", async () => {
    assert.deepEqual(await publishInChild(`'# ' + fill('[') + '\\n\\nneedle\\n'`), ['created', '1']);
  });

  it("a world's PUBLISH of a paragraph of unclosed images", async () => {
    assert.deepEqual(await publishInChild(`'# T\\n\\nneedle ' + fill('![') + '\\n'`), ['created', '1']);
  });
});
