/**
 * Markup stripping for section text (Go `bodymatch.go`: fences, list, quote and table
 * markers, link targets, HTML tags and emphasis are stripped before tokenizing).
 * Line based and forgiving: the goal is searchable prose, not a faithful render.
 */

const quoteMarkers = /^[ \t]*(?:>[ \t]?)+/;
const listMarker = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/;
const tableSeparator = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const linkDefinition = /^ {0,3}\[[^\]]+\]:[ \t]*\S+/;

/** Inline markup: links keep their text, images their alt, tags and emphasis vanish. */
export function stripInline(text: string): string {
  return text
    .replace(/<!--.*?-->/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g, (_m, target: string, label?: string) => label ?? target)
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ')
    .replace(/`+/g, '')
    .replace(/\*\*|__|~~/g, '')
    .replace(/(^|[^\p{L}\p{N}])[*_]+|[*_]+(?=$|[^\p{L}\p{N}])/gu, '$1');
}

/**
 * One body line outside code, as searchable text; '' when the line is pure markup
 * (a table separator row or a link reference definition).
 */
export function stripLine(line: string): string {
  if (linkDefinition.test(line)) return '';
  let s = line.replace(quoteMarkers, '').replace(listMarker, '');
  if (/^[ \t]*\|/.test(s) || /\|[ \t]*$/.test(s)) {
    if (tableSeparator.test(s)) return '';
    s = s.replace(/\|/g, ' ');
  }
  return collapse(stripInline(s));
}

/** Collapse whitespace runs to one space and trim. */
export function collapse(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}
