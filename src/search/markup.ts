/**
 * Markup stripping for section text (Go `bodymatch.go`: fences, list, quote and table
 * markers, link targets, HTML tags and emphasis are stripped before tokenizing).
 * Line based and forgiving: the goal is searchable prose, not a faithful render.
 */

import { bracketLabelEnds, NextMatch, replaceComments, replaceEach, replaceLinks } from '../markdown/index.ts';

const quoteMarkers = /^[ \t]*(?:>[ \t]?)+/;
const listMarker = /^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/;
const tableSeparator = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const linkDefinition = /^ {0,3}\[[^\]]+\]:[ \t]*\S+/;

/**
 * Inline markup: links keep their text, images their alt, tags and emphasis vanish.
 *
 * Comments, links, images, wiki links, autolinks and tags are replaced by
 * hand in one pass each, with the result of the pattern each names: those
 * patterns restarted at every `[` or `<` and scanned to the end of a line
 * that never closed it, quadratic in the line, and the world strips every
 * body it indexes at PUBLISH (test/security/markdown-linear.test.ts).
 */
export function stripInline(text: string): string {
  let s = replaceComments(text, ' ', true); // /<!--.*?-->/g → ' '
  s = replaceLinks(s, { opener: '![', tail: 'inline', labelEnds: bracketLabelEnds }); // /!\[([^\]]*)\]\([^)]*\)/g
  s = replaceWikiLinks(s);
  s = replaceLinks(s, { opener: '[', tail: 'inline', labelEnds: bracketLabelEnds }); // /\[([^\]]*)\]\([^)]*\)/g
  s = replaceLinks(s, { opener: '[', tail: 'reference', labelEnds: bracketLabelEnds }); // /\[([^\]]*)\]\[[^\]]*\]/g
  return replaceTags(replaceAutolinks(s))
    .replace(/`+/g, '')
    .replace(/\*\*|__|~~/g, '')
    .replace(/(^|[^\p{L}\p{N}])[*_]+|[*_]+(?=$|[^\p{L}\p{N}])/gu, '$1');
}

/** `[[target]]` → target, `[[target|label]]` → label: `/\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g`. */
function replaceWikiLinks(s: string): string {
  if (!s.includes('[[')) return s;
  const targetEnds = new NextMatch(s, /[\]|]/g);
  const labelEnds = new NextMatch(s, ']');
  return replaceEach(s, '[[', (open) => {
    const target = open + 2;
    const bar = targetEnds.from(target); // the `]` or `|` that ends the target
    if (bar > target && s[bar] === ']' && s[bar + 1] === ']') return { text: s.slice(target, bar), end: bar + 2 };
    if (bar > target && s[bar] === '|') {
      const close = labelEnds.from(bar + 1);
      if (close > bar + 1 && s[close + 1] === ']') return { text: s.slice(bar + 1, close), end: close + 2 };
    }
    return null;
  });
}

/** `<https://...>`, `<http://...>` and `<mailto:...>` → their address: `/<((?:https?|mailto):[^>\s]+)>/g`. */
function replaceAutolinks(s: string): string {
  if (!s.includes('<')) return s;
  const ends = new NextMatch(s, /[>\s]/g);
  return replaceEach(s, '<', (open) => {
    const scheme = /^(?:https?|mailto):/.exec(s.slice(open + 1, open + 9));
    const address = open + 1 + (scheme?.[0].length ?? 0);
    const close = scheme === null ? -1 : ends.from(address);
    return close <= address || s[close] !== '>' ? null : { text: s.slice(open + 1, close), end: close + 1 };
  });
}

/** HTML tags → a space: `/<\/?[A-Za-z][^>]*>/g`. */
function replaceTags(s: string): string {
  if (!s.includes('<')) return s;
  const ends = new NextMatch(s, '>');
  return replaceEach(s, '<', (open) => {
    const name = s[open + 1] === '/' ? open + 2 : open + 1;
    const close = /[A-Za-z]/.test(s[name] ?? '') ? ends.from(name + 1) : -1;
    return close < 0 ? null : { text: ' ', end: close + 1 };
  });
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
