import { escapeMarkdown, pathEscape } from '../escape.ts';
import { formatRfc3339 } from '../time.ts';

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

const versionLine = /^- \[v(\d+)\]\([^()\s]*\) - (\S+)$/;

/** The VERSIONS body read back: each `- [vN](...) - <time>` line, in the order written (newest first). */
export function parseVersions(body: string): Array<{ version: number; modified: string }> {
  const out: Array<{ version: number; modified: string }> = [];
  for (const line of body.split('\n')) {
    const match = versionLine.exec(line.trimEnd());
    if (match !== null) out.push({ version: Number(match[1]), modified: match[2]! });
  }
  return out;
}
