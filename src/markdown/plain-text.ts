import { escapedLabelEnds, isSpaceOrTab, replaceComments, replaceLinks } from './linear-replace.ts';

/**
 * Inline markdown as the text it renders to, the way goldmark concatenates
 * text segments: links and images keep their text, autolinks their address,
 * code spans their content; emphasis markers, tags, comments and escapes
 * vanish, and soft line breaks join without a space. Heading text, heading
 * anchors and link labels are all made from it.
 *
 * Time linear in the source: a setext heading may be a paragraph of 1 MiB.
 * Comments, links and images are replaced in one pass each
 * (src/markdown/linear-replace.ts), and the remaining patterns cannot restart
 * a long scan at each position (test/security/markdown-linear.test.ts).
 */
export function plainText(source: string): string {
  // Without one of these characters none of the replacements below can match: most headings and
  // link labels, read once each (a 1 MiB document may hold 262,000 headings).
  if (!markupCharacter.test(source)) return joinSoftBreaks(source).trim();
  let text = replaceComments(source, ''); // /<!--[\s\S]*?-->/g
  text = replaceLinks(text, { opener: '![', tail: 'inline', labelEnds: escapedLabelEnds });
  text = replaceLinks(text, { opener: '[', tail: 'inline', labelEnds: escapedLabelEnds });
  text = replaceLinks(text, { opener: '[', tail: 'reference', labelEnds: escapedLabelEnds });
  return joinSoftBreaks(
    text
      .replace(/<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>/g, '$1')
      .replace(/<[^<>]+>/g, '')
      .replace(/`+/g, '')
      .replace(/\*\*|__|~~/g, '')
      .replace(/(^|[^\p{L}\p{N}\\])[*_]+|(?<!\\)[*_]+(?=$|[^\p{L}\p{N}])/gu, '$1')
      .replace(/\\([!-/:-@[-`{-~])/g, '$1'),
  ).trim();
}

/** A character that some replacement of `plainText` starts at: `<`, `` ` ``, `*`, `_`, `~`, `\\`, `[`. */
const markupCharacter = /[<`*_~\\[]/;

/**
 * Each line break removed with the spaces and tabs around it, as a global replace of
 * `[ \t]*\n[ \t]*` by '' did. By hand: that pattern scanned a long run of spaces once per space.
 */
function joinSoftBreaks(s: string): string {
  if (!s.includes('\n')) return s;
  const lines = s.split('\n');
  return lines
    .map((line, i) => {
      let start = 0;
      let end = line.length;
      if (i > 0) while (start < end && isSpaceOrTab(line[start])) start++;
      if (i < lines.length - 1) while (end > start && isSpaceOrTab(line[end - 1])) end--;
      return line.slice(start, end);
    })
    .join('');
}
