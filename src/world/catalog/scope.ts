/**
 * LOOKUP scopes (Go `catalog/catalog.go`, catalog.NormalizeScope and underScope). The
 * scope is deliberately not cleaned here: the handler canonicalises the request
 * path first, and the catalog only trims and anchors it.
 */

/** `/` for the whole world, else a leading-slashed scope without trailing slashes. */
export function normalizeScope(scope: string): string {
  if (scope === '' || scope === '/') return '/';
  const anchored = scope.startsWith('/') ? scope : `/${scope}`;
  let end = anchored.length;
  while (end > 0 && anchored.charCodeAt(end - 1) === 0x2f) end--;
  return anchored.slice(0, end);
}

/** A path is under a normalized scope when it is the scope or starts with scope + `/`; `/oth` does not hold `/other`. */
export function isUnderScope(path: string, scope: string): boolean {
  return scope === '/' || path === scope || (path.startsWith(scope) && path.charCodeAt(scope.length) === 0x2f);
}
