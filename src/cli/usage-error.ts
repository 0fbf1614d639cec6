/** A command line that cannot run as given: printed as one line with the command's usage, exit code 2. */
import { errorWithCode } from '../errors/coded-error.ts';
export class UsageError extends errorWithCode('ERR_USAGE') {}

export function parseHostPort(text: string, defaultPort: number): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]*)(?::(\d{1,5}))?$/.exec(text);
  if (match === null) throw new UsageError(`invalid address "${text}": expected HOST:PORT`);
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '') || '::';
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port > 65535) throw new UsageError(`invalid port in "${text}"`);
  return { host, port };
}
