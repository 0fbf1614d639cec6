/**
 * A link label as plain text, the way goldmark concatenates text segments:
 * images keep their alt text, code spans their content, emphasis markers,
 * tags and escapes vanish, and soft line breaks join without a space.
 */
export function plainText(source: string): string {
  return source
    .replace(/!\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, '$1')
    .replace(/\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, '$1')
    .replace(/<[^<>]+>/g, '')
    .replace(/`+/g, '')
    .replace(/\*\*|__|~~/g, '')
    .replace(/(^|[^\p{L}\p{N}\\])[*_]+|(?<!\\)[*_]+(?=$|[^\p{L}\p{N}])/gu, '$1')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/[ \t]*\n[ \t]*/g, '')
    .trim();
}
