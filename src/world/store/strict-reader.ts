/**
 * The strict stored-version reader (Mark SPEC §9.4; Go `storefmt.InspectStoredVersion`).
 * The lenient readers in stored-format.ts serve documents; this one decides
 * whether a file is a well-formed version at all, for chain verification and
 * for start-up repair of an unreferenced tip.
 */
import { maxVersionNumber } from '../../protocol/limits.ts';
import { okfKeys } from '../../protocol/metadata.ts';
import { integrity } from './errors.ts';
import { storeReservedKeys, validateMeta } from './publisher-meta.ts';
import { cutField, extractMetadata, metaPrefix, splitStored } from './stored-format.ts';

export type StoredHeader = { version: number; archived: boolean; previousHash: string | null };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `InspectStoredVersion`: the strict reader. `version` on line 1, `archived` on
 * line 2, `previous-hash` on line 3 when N > 1, then publisher fields strictly
 * sorted by bare key with no unknown bare keys, and metadata that passes
 * `validateMeta`. Throws ERR_INTEGRITY naming the first problem.
 */
export function inspectStoredVersion(raw: Uint8Array): StoredHeader {
  const split = splitStored(raw);
  if (split === null) throw integrity('stored version: invalid frontmatter');
  let block: string;
  try {
    block = strictUtf8.decode(split.block);
  } catch (cause) {
    throw integrity('stored version: frontmatter is not valid UTF-8', cause);
  }
  const lines = block.split('\n');
  if (lines.length < 2) throw integrity('stored version: missing operational fields');
  const version = parseVersionLine(lines[0] ?? '');
  const archived = parseArchivedLine(lines[1] ?? '');
  let previousHash: string | null = null;
  let next = 2;
  if (version > 1) {
    previousHash = parsePreviousHashLine(lines[2]);
    next = 3;
  }
  checkPublisherFields(lines.slice(next));
  try {
    validateMeta(extractMetadata(raw));
  } catch (cause) {
    throw integrity(`stored version: ${(cause as Error).message}`, cause);
  }
  return { version, archived, previousHash };
}

function exactField(line: string, key: string): string | null {
  const prefix = `${key}: `;
  return line.startsWith(prefix) ? line.slice(prefix.length) : null;
}

function parseVersionLine(line: string): number {
  const value = exactField(line, 'version');
  if (value === null) throw integrity(`stored version: malformed version field ${JSON.stringify(line)}`);
  // Go ParseInt(v, 10, 32) plus a round trip: canonical decimal, 1..2^31-1.
  if (!/^[1-9][0-9]*$/.test(value) || Number(value) > maxVersionNumber) {
    throw integrity(`stored version: invalid version ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function parseArchivedLine(line: string): boolean {
  const value = exactField(line, 'archived');
  if (value !== 'false' && value !== 'true')
    throw integrity(`stored version: invalid archived field ${JSON.stringify(line)}`);
  return value === 'true';
}

function parsePreviousHashLine(line: string | undefined): string {
  if (line === undefined) throw integrity('stored version: missing previous-hash');
  const value = exactField(line, 'previous-hash');
  if (value === null || !/^sha256-[0-9a-f]{64}$/.test(value)) {
    throw integrity(`stored version: invalid previous-hash ${JSON.stringify(line)}`);
  }
  return value;
}

function checkPublisherFields(lines: string[]): void {
  let previousKey = '';
  for (const line of lines) {
    const field = cutField(line);
    if (field === null || field[0] === '' || field[0].trim() !== field[0]) {
      throw integrity(`stored version: malformed publisher field ${JSON.stringify(line)}`);
    }
    const key = field[0];
    let logical = key;
    if (key.startsWith(metaPrefix)) {
      logical = key.slice(metaPrefix.length);
      if (storeReservedKeys.has(logical))
        throw integrity(`stored version: field ${JSON.stringify(key)} aliases a store field`);
    } else if (!okfKeys.has(key)) {
      throw integrity(`stored version: unknown field ${JSON.stringify(key)}`);
    }
    if (Buffer.compare(Buffer.from(logical), Buffer.from(previousKey)) <= 0) {
      throw integrity('stored version: publisher fields are not strictly sorted');
    }
    previousKey = logical;
  }
}
