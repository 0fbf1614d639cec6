import { parseImportance, splitTags } from '../../protocol/metadata.ts';
import type { Metadata } from '../../protocol/metadata.ts';
import { goTrimSpace } from '../../protocol/go-strings.ts';

/**
 * One document's catalog record (Go `catalog/entry.go`, catalog.Entry): what LOOKUP
 * matches, orders and renders. Entries are frozen; the catalog derives its
 * indexes from them once, at upsert.
 */
export interface CatalogEntry {
  readonly path: string;
  readonly title: string;
  readonly tags: readonly string[];
  readonly importance: number;
  readonly modified: Date;
  /** The persisted bare publisher metadata, for exact-match filters. */
  readonly metadata: Readonly<Metadata>;
}

/** A current, non-archived document as the store hands it over: body without store frontmatter. */
export interface CatalogSource {
  readonly path: string;
  readonly body: string;
  readonly metadata: Readonly<Metadata>;
  readonly modified: Date;
}

/**
 * `FromDocument`: tags and importance from the metadata, the title resolved
 * from the declared title, the first H1 or the base name. The body is read
 * here and not kept.
 */
export function entryFromDocument(source: CatalogSource): CatalogEntry {
  const metadata: Metadata = { ...source.metadata };
  return Object.freeze({
    path: source.path,
    title: resolveTitle(metadata.title, source.body, source.path),
    tags: Object.freeze(splitTags(metadata.tags)),
    importance: parseImportance(metadata.importance),
    modified: new Date(source.modified.getTime()),
    metadata: Object.freeze(metadata),
  });
}

/** Go `catalog/entry.go`: the declared title trimmed, else the first level-1 ATX heading, else `path.Base`. */
export function resolveTitle(declared: string | undefined, body: string, path: string): string {
  const title = goTrimSpace(declared ?? '');
  if (title !== '') return title;
  const heading = firstH1(body);
  if (heading !== '') return heading;
  return pathBase(path);
}

/**
 * The text of the first `# ` heading, or `''` (entry.go firstH1). Exactly one `#`
 * and a space; at most 3 leading spaces, since a TAB or 4+ spaces make an
 * indented code block; lines in ``` or ~~~ fences are skipped, and any fence
 * line toggles. Setext headings do not count.
 */
export function firstH1(body: string): string {
  let inFence = false;
  for (let start = 0; start <= body.length; ) {
    let end = body.indexOf('\n', start);
    if (end < 0) end = body.length;
    const line = body.slice(start, end);
    start = end + 1;
    const trimmed = goTrimSpace(line);
    if (trimmed.startsWith('```') || trimmed.startsWith('~~~')) {
      inFence = !inFence;
      continue;
    }
    if (inFence || line.startsWith('\t') || leadingSpaces(line) >= 4) continue;
    if (trimmed.startsWith('# ')) return goTrimSpace(trimmed.slice(2));
  }
  return '';
}

function leadingSpaces(line: string): number {
  let count = 0;
  while (count < line.length && line.charCodeAt(count) === 0x20) count++;
  return count;
}

/** Go's `path.Base`: the last element, trailing slashes ignored; `.` for `''`, `/` for all slashes. */
export function pathBase(path: string): string {
  if (path === '') return '.';
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  if (end === 0) return '/';
  return path.slice(path.lastIndexOf('/', end - 1) + 1, end);
}

/** Catalog entries must carry a real instant and a finite importance; anything else is a programmer error. */
export function assertValidEntry(entry: CatalogEntry): void {
  if (typeof entry.path !== 'string' || !entry.path.startsWith('/'))
    throw new TypeError('catalog entry path must be absolute');
  if (!(entry.modified instanceof Date) || Number.isNaN(entry.modified.getTime())) {
    throw new TypeError(`catalog entry ${entry.path}: modified must be a valid Date`);
  }
  if (!Number.isFinite(entry.importance)) throw new TypeError(`catalog entry ${entry.path}: importance must be finite`);
  if (typeof entry.title !== 'string' || !Array.isArray(entry.tags))
    throw new TypeError(`catalog entry ${entry.path}: malformed`);
}
