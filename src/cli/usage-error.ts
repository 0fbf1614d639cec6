/** A command line that cannot run as given: printed as one line and where to read the command's usage, exit code 2 (main.ts). */
import { errorWithCode } from '../errors/coded-error.ts';
import { MarkUrlError, parseMarkUrl, type MarkUrl } from '../protocol/mark-url.ts';
export class UsageError extends errorWithCode('ERR_USAGE') {}

/** A mark:// URL given on the command line (`flag` names it when a flag carries it): one that does not parse is a usage error. */
export function markUrlArgument(text: string, flag?: string): MarkUrl {
  try {
    return parseMarkUrl(text);
  } catch (error) {
    if (error instanceof MarkUrlError)
      throw new UsageError(flag === undefined ? error.message : `${flag}: ${error.message}`);
    throw error;
  }
}

/**
 * A listen address flag: `HOST:PORT`, `[IPv6]:PORT`, `:PORT` (every address) or
 * `HOST` (the default port). All digits is refused: `6309` read as a host
 * named "6309" and failed only at bind, as "could not listen on 6309:6309".
 */
export function parseHostPort(flag: string, text: string, defaultPort: number): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]*)(?::(\d{1,5}))?$/.exec(text);
  if (match === null || /^\d+$/.test(text))
    throw new UsageError(
      `${flag} must be HOST:PORT, e.g. \`[::]:${defaultPort}\` or \`:${defaultPort}\`, got ${JSON.stringify(text)}`,
    );
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '') || '::';
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port > 65535) throw new UsageError(`${flag}: the port must be at most 65535, got ${JSON.stringify(text)}`);
  return { host, port };
}
