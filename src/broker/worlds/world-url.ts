/**
 * Tool URLs: only `mark://{world}/{path}` (Go broker `parseToolURL`).
 * The world name is the whole authority: a port or userinfo is refused, never
 * dropped (credentials in a URL must not pass silently, and the broker resolves
 * world names itself); a query is refused; a fragment is refused unless the
 * caller allows one (`mark_fetch`, `mark_explore` and resources cut the
 * `#anchor` off before parsing). World names are compared lower-case. A path
 * the protocol cannot carry once percent-decoded (a control character, more
 * than 4087 bytes) is refused too, with the reason.
 *
 * Messages are the reference's `parseToolURL` texts; tools wrap them as
 * `invalid URL: <message>` and resources as `invalid resource URI "<raw>": <message>`.
 */
import { goHostname, goParseUrl, goPort, GoUrlError, type GoUrl } from './go-url.ts';
import { goQuote } from '../../protocol/go-quote.ts';
import { CodedError } from '../../errors/coded-error.ts';
import { isValidRequestPath } from '../../protocol/paths.ts';
import { maxRequestPathBytes } from '../../protocol/limits.ts';

export type WorldUrl = {
  world: string;
  /** Percent-decoded; `/` when the URL has none. */
  path: string;
  /** The raw text after the first `#` (allowFragment only); null when absent or empty. */
  fragment: string | null;
};

export class WorldUrlError extends CodedError<'ERR_INVALID_WORLD_URL'> {
  readonly input: string;
  constructor(input: string, message: string, options?: { cause?: unknown }) {
    super('ERR_INVALID_WORLD_URL', message, options);
    this.input = input;
  }
}

export function parseWorldUrl(text: string, options: { allowFragment?: boolean } = {}): WorldUrl {
  let raw = text;
  let fragment: string | null = null;
  if (options.allowFragment === true) {
    const hashAt = text.indexOf('#');
    if (hashAt >= 0) [raw, fragment] = [text.slice(0, hashAt), text.slice(hashAt + 1) || null];
  }
  let url: GoUrl;
  try {
    url = goParseUrl(raw);
  } catch (error) {
    if (!(error instanceof GoUrlError)) throw error;
    throw new WorldUrlError(text, `invalid URL: ${error.message}`, { cause: error });
  }
  const quoted = goQuote(raw);
  if (url.scheme !== 'mark')
    throw new WorldUrlError(text, `unsupported scheme ${goQuote(url.scheme)} (expected mark://)`);
  const world = goHostname(url.host).toLowerCase();
  if (world === '')
    throw new WorldUrlError(text, `missing world name in URL ${quoted} (expected mark://{worldName}/{path})`);
  // Go accepts an empty port (`mark://team-a:/x`); we refuse it with the port message.
  if (goPort(url.host) !== '' || url.host.replace(/^\[[^\]]*\]/, '').includes(':')) {
    throw new WorldUrlError(
      text,
      `invalid URL ${quoted}: world host must not carry a port (the broker resolves world names internally)`,
    );
  }
  if (url.hasUser) throw new WorldUrlError(text, `invalid URL ${quoted}: world host must not carry userinfo`);
  if (url.rawQuery !== '') throw new WorldUrlError(text, `invalid URL ${quoted}: query parameters are not supported`);
  if (url.fragment !== '') throw new WorldUrlError(text, `invalid URL ${quoted}: fragments are not supported`);
  const path = url.path === '' ? '/' : url.path;
  const problem = pathProblem(path, quoted);
  if (problem !== null) throw new WorldUrlError(text, problem);
  return { world, path, fragment };
}

/**
 * A decoded path the Mark Protocol would refuse (src/protocol/paths.ts
 * `isValidRequestPath`), refused here with a reason rather than at send time,
 * where encodeRequest's TypeError could only read as an internal error.
 */
function pathProblem(path: string, quoted: string): string | null {
  if (isValidRequestPath(path)) return null;
  const bytes = Buffer.byteLength(path);
  // A URL this long is not quoted back: the message would be over 4 KB.
  if (bytes > maxRequestPathBytes)
    return `invalid URL: the path is ${bytes} bytes once percent-decoded, over the Mark limit of ${maxRequestPathBytes}; use a shorter path`;
  return `invalid URL ${quoted}: the path holds a control character (%00 to %1F other than tab, or %7F), which Mark paths may not contain; remove it`;
}
