import { errorWithCode } from '../../errors/coded-error.ts';
import { escapeMarkdown, pathEscape } from '../escape.ts';
import { formatRfc3339, parseRfc3339 } from '../time.ts';

export type VersionLine = { version: number; modified: Date };

/**
 * The VERSIONS body, newest first. Links use url.PathEscape of the whole path,
 * so `/` comes out as `%2F` exactly as the Go server writes it.
 */
export function renderVersions(path: string, versions: readonly VersionLine[]): string {
  let body = `\n# Version History: ${escapeMarkdown(path)}\n\n`;
  const newestFirst = [...versions].sort((a, b) => b.version - a.version);
  for (const { version, modified } of newestFirst) {
    body += `- [v${version}](${pathEscape(path)}/v${version}) - ${formatRfc3339(modified)}\n`;
  }
  return body;
}

const versionLine = /^- \[v(\d+)\]\([^()\s]*\/v\1\) - (\S+)$/;

/**
 * A VERSIONS body (`renderVersions`'s output) read back, newest first as
 * written. A line that looks like an entry but has no valid version number or
 * RFC 3339 time is refused rather than skipped.
 */
export function parseVersions(body: string): VersionLine[] {
  const versions: VersionLine[] = [];
  for (const line of body.split('\n')) {
    if (!line.startsWith('- [v')) continue;
    const match = versionLine.exec(line);
    const modified = match ? parseRfc3339(match[2]!) : null;
    if (match === null || modified === null) throw new VersionsAnswerError(`malformed VERSIONS response: ${line}`);
    versions.push({ version: Number(match[1]), modified });
  }
  return versions;
}

export class VersionsAnswerError extends errorWithCode('ERR_MALFORMED_VERSIONS') {}
