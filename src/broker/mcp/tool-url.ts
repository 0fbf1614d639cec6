import type { WorldInfo } from '../worlds/gateway.ts';
import { canonicalWorldUrl, knownWorldsHint } from '../worlds/world-aliases.ts';
import { parseWorldUrl, WorldUrlError } from '../worlds/world-url.ts';
import { errorWithCode } from '../../errors/coded-error.ts';

/**
 * Tool URLs: `mark://{world}/{path}` and nothing else (Go broker
 * `parseToolURL`). One parser serves the whole
 * broker (`parseWorldUrl`); tools see its refusals as ToolUrlError with the
 * reference's texts, which agents may match on. Given the known worlds, a URL
 * whose authority is one of a world's other addresses (public URL, dial
 * address: what mark_worlds shows) is read as that world, and a refusal of a
 * port names the worlds there are.
 */
export type ToolUrl = { world: string; path: string };

export class ToolUrlError extends errorWithCode('ERR_INVALID_TOOL_URL') {}

export function parseToolUrl(raw: string, worlds?: readonly WorldInfo[]): ToolUrl {
  try {
    const { world, path } = parseWorldUrl(worlds === undefined ? raw : canonicalWorldUrl(raw, worlds));
    return { world, path };
  } catch (error) {
    if (!(error instanceof WorldUrlError)) throw error;
    const hint =
      worlds !== undefined && error.message.includes('must not carry a port') ? `; ${knownWorldsHint(worlds)}` : '';
    throw new ToolUrlError(`${error.message}${hint}`, { cause: error });
  }
}

/**
 * `strings.Cut(raw, "#")`: the URL before the first `#` and the anchor after
 * it. mark_fetch, mark_explore and resource reads give the fragment a meaning
 * (a section), so they cut it off before parsing.
 */
export function cutAnchor(raw: string): { url: string; anchor: string } {
  const { head, tail } = cut(raw, '#');
  return { url: head, anchor: tail ?? '' };
}

function cut(text: string, separator: string): { head: string; tail: string | null } {
  const at = text.indexOf(separator);
  return at < 0 ? { head: text, tail: null } : { head: text.slice(0, at), tail: text.slice(at + 1) };
}
