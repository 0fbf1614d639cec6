/**
 * Outbound links of a document for mark_explore's card (reference
 * mdoutline.LinkLines over links.ExtractWithPositions): inline and reference
 * links, not images or autolinks, never inside code; the fragment is cut off,
 * fragment-only links are dropped, and each destination is listed once, in
 * document order, as `- [text](dest)` or `- dest` when the text is empty.
 */
export type DocLink = { text: string; dest: string };

const inlineLink =
  /(!?)\[((?:[^[\]\\]|\\.|\[(?:[^[\]\\]|\\.)*\])*)\]\(\s*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const referenceLink = /(!?)\[((?:[^[\]\\]|\\.)*)\]\[((?:[^[\]\\]|\\.)*)\]/g;
const definition = /^ {0,3}\[((?:[^[\]\\]|\\.)+)\]:[ \t]*(<[^<>\n]*>|\S+)/;

export function documentLinks(markdown: string): DocLink[] {
  const { prose, definitions } = proseOf(markdown);
  const spans = codeSpans(prose);
  const inCode = (at: number) => spans.some(([start, end]) => at >= start && at < end);
  const found: Array<{ at: number; text: string; dest: string }> = [];
  for (const m of prose.matchAll(inlineLink)) {
    if (m[1] === '' && !inCode(m.index)) found.push({ at: m.index, text: m[2]!, dest: unwrapAngle(m[3]!) });
  }
  for (const m of prose.matchAll(referenceLink)) {
    const label = normalizeLabel(m[3] === '' ? m[2]! : m[3]!);
    const dest = definitions.get(label);
    if (m[1] === '' && dest !== undefined && !inCode(m.index)) found.push({ at: m.index, text: m[2]!, dest });
  }
  found.sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const links: DocLink[] = [];
  for (const link of found) {
    const raw = unescapePunctuation(link.dest);
    if (raw === '' || raw.startsWith('#')) continue;
    const dest = raw.split('#', 1)[0]!;
    if (seen.has(dest)) continue;
    seen.add(dest);
    links.push({ text: plainLinkText(link.text), dest });
  }
  return links;
}

export function linkLines(markdown: string): string[] {
  return documentLinks(markdown).map((link) =>
    link.text === '' ? `- ${link.dest}` : `- [${link.text}](${link.dest})`,
  );
}

/**
 * The document with code blocks and definition lines blanked out (same length,
 * so positions keep document order), plus the reference definitions it holds.
 */
function proseOf(markdown: string): { prose: string; definitions: Map<string, string> } {
  const definitions = new Map<string, string>();
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      if (new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*\\r?$`).test(line)) fence = null;
      out.push(' '.repeat(line.length));
      continue;
    }
    if (open) {
      fence = open[1]!;
      out.push(' '.repeat(line.length));
      continue;
    }
    const def = definition.exec(line);
    if (def) {
      const label = normalizeLabel(def[1]!);
      if (!definitions.has(label)) definitions.set(label, unwrapAngle(def[2]!));
      out.push(' '.repeat(line.length));
      continue;
    }
    out.push(/^( {4}|\t)/.test(line) ? ' '.repeat(line.length) : line);
  }
  return { prose: out.join('\n'), definitions };
}

/** [start, end) of every code span: a link that starts inside one is code, not a link. */
function codeSpans(prose: string): Array<[number, number]> {
  return [...prose.matchAll(/(`+)(?:(?!\1)[^\n]|\n(?!\s*\n))*?\1/g)].map((m) => [m.index, m.index + m[0].length]);
}

function unwrapAngle(dest: string): string {
  return dest.startsWith('<') && dest.endsWith('>') ? dest.slice(1, -1) : dest;
}

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

function unescapePunctuation(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/** Link text as rendered: nested image alt text kept, emphasis and code markers dropped. */
function plainLinkText(text: string): string {
  return unescapePunctuation(
    text
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`+/g, '')
      .replace(/\*+/g, '')
      .replace(/(^|[^\p{L}\p{N}])_+(?=\S)/gu, '$1')
      .replace(/(\S)_+(?=[^\p{L}\p{N}]|$)/gu, '$1'),
  ).trim();
}
