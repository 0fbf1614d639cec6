import { lookupMaxLimit } from '../../../protocol/limits.ts';
import { Status } from '../../../protocol/status.ts';
import { formatRfc3339 } from '../../../protocol/time.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import type { WorldGateway } from '../../worlds/gateway.ts';
import { readWithBackoff } from '../read-retry.ts';

/**
 * Which documents of a world changed after an instant, from one catalog
 * LOOKUP (`query: *`, `filter: modified-after=<t>`, Mark SPEC §6.7;
 * Go `catalog/filter.go`) instead of one conditional FETCH per document.
 *
 * The answer is trusted only when it is clearly complete. The catalog cuts
 * its matches at 1000 before read-auth filtering, so a world that hides rows
 * from an unauthenticated reader could show fewer than 1000 rows and still be
 * cut; answers of `trustedRows` rows or more are therefore not used, nor are
 * answers from worlds without `*` or `modified-after` (older servers), nor
 * anything but a well-formed `ok`. Null means "unknown": ask every document.
 */
export const trustedRows = 500;

export async function changedSince(
  gateway: WorldGateway,
  world: string,
  since: Date,
  signal?: AbortSignal,
): Promise<Set<string> | null> {
  let response: MarkResponse;
  try {
    response = await readWithBackoff(gateway, world, {
      verb: 'LOOKUP',
      path: '/',
      metadata: { query: '*', filter: `modified-after=${formatRfc3339(since)}`, limit: String(lookupMaxLimit) },
      ...(signal ? { signal } : {}),
    });
  } catch {
    return null;
  }
  if (response.status !== Status.Ok) return null;
  const paths = lookupPaths(Buffer.from(response.body).toString('utf8'));
  if (paths === null || paths.length >= trustedRows || response.metadata.matches !== String(paths.length)) return null;
  return new Set(paths);
}

/** The Path column of a catalog LOOKUP table, unescaped; null when the body is not one. */
function lookupPaths(body: string): string[] | null {
  const lines = body.split('\n');
  const header = lines.indexOf('| Path | Importance | Title | Tags |');
  if (header < 0 || !lines[header + 1]?.startsWith('|---')) return null;
  const paths: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('| ')) break;
    const m = /^\| ((?:\\.|[^\\|])+?) \|/.exec(line);
    if (m === null) return null;
    paths.push(m[1]!.replace(/\\(.)/g, '$1'));
  }
  return paths;
}
