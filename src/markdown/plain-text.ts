/**
 * Inline markdown as the text it renders to, the way goldmark concatenates
 * text segments: links and images keep their text, autolinks their address,
 * code spans their content; emphasis markers, tags, comments and escapes
 * vanish, and soft line breaks join without a space. Heading text, heading
 * anchors and link labels are all made from it.
 */
export function plainText(source: string): string {
  return source
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/!\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, '$1')
    .replace(/\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, '$1')
    .replace(/\[((?:[^\]\\]|\\.)*)\]\[(?:[^\]\\]|\\.)*\]/g, '$1')
    .replace(/<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>/g, '$1')
    .replace(/<[^<>]+>/g, '')
    .replace(/`+/g, '')
    .replace(/\*\*|__|~~/g, '')
    .replace(/(^|[^\p{L}\p{N}\\])[*_]+|(?<!\\)[*_]+(?=$|[^\p{L}\p{N}])/gu, '$1')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/[ \t]*\n[ \t]*/g, '')
    .trim();
}
