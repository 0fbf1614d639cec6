import { parseWorldUrl, WorldUrlError } from '../worlds/world-url.ts';
import { errorWithCode } from '../../errors/coded-error.ts';

/**
 * Tool URLs: `mark://{world}/{path}` and nothing else (reference broker
 * `parseToolURL`, go-broker-inventory §4.2). One parser serves the whole
 * broker (`parseWorldUrl`); tools see its refusals as ToolUrlError with the
 * reference's texts, which agents may match on.
 */
export type ToolUrl = { world: string; path: string };

export class ToolUrlError extends errorWithCode('ERR_INVALID_TOOL_URL') {}

export function parseToolUrl(raw: string): ToolUrl {
  try {
    const { world, path } = parseWorldUrl(raw);
    return { world, path };
  } catch (error) {
    if (error instanceof WorldUrlError) throw new ToolUrlError(error.message, { cause: error });
    throw error;
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
