/** A command line that cannot run as given: printed as one line with the command's usage, exit code 2. */
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

export function parseHostPort(text: string, defaultPort: number): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]*)(?::(\d{1,5}))?$/.exec(text);
  if (match === null) throw new UsageError(`invalid address "${text}": expected HOST:PORT`);
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '') || '::';
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port > 65535) throw new UsageError(`invalid port in "${text}"`);
  return { host, port };
}
