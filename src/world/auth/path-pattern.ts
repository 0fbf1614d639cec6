/**
 * Token path patterns (Go `server/internal/auth/auth.go` `matchPath`, `validatePattern`):
 * `path.Match` globs plus one recursive `**`, slash-delimited:
 *
 * - no `**`: `path.Match` (`/docs/*` matches `/docs/a.md`, not `/docs/sub/a.md`);
 * - trailing `/**`: the path starts with `prefix + "/"` (`/docs/**` matches
 *   `/docs/a/b.md`, not `/docs`); the prefix is literal, as in Go;
 * - infix `/**` + `/`: the path starts with `prefix + "/"` and the suffix, itself a
 *   `path.Match` pattern, matches some tail beginning at a segment boundary
 *   (zero intermediate segments allowed).
 */
import { BadPatternError, pathMatch } from './path-match.ts';
import { errorWithCode } from '../../errors/coded-error.ts';

export class PatternError extends errorWithCode('ERR_PATTERN') {}

/** Go `validatePattern`: throws PatternError when the pattern would be a load error. */
export function validatePattern(pattern: string): void {
  const stars = pattern.split('**').length - 1;
  if (stars > 1) throw new PatternError('only one ** wildcard is supported per pattern');
  if (stars === 1) {
    const stripped = pattern.replaceAll('/**/', '/').replace(/\/\*\*$/, '');
    if (stripped.includes('**')) throw new PatternError('** must be delimited by slashes (use /** or /**/)');
  }
  const clean = pattern.replaceAll('**', 'placeholder');
  try {
    pathMatch(clean, clean);
  } catch (err) {
    if (err instanceof BadPatternError) throw new PatternError(err.message);
    throw err;
  }
}

/** Go `matchPath`; patterns are validated at load, so a syntax error here is a non-match. */
export function matchPath(pattern: string, reqPath: string): boolean {
  if (!pattern.includes('**')) return safeMatch(pattern, reqPath);
  if (pattern.endsWith('/**')) return reqPath.startsWith(`${pattern.slice(0, -3)}/`);
  const cut = pattern.indexOf('/**/');
  if (cut < 0) return false;
  const prefix = pattern.slice(0, cut);
  const suffix = pattern.slice(cut + 4);
  if (!reqPath.startsWith(`${prefix}/`)) return false;
  const remaining = reqPath.slice(prefix.length + 1);
  for (let i = 0; i < remaining.length; i++) {
    if (i > 0 && remaining[i - 1] !== '/') continue;
    if (safeMatch(suffix, remaining.slice(i))) return true;
  }
  return false;
}

export function matchesAnyPath(patterns: readonly string[], reqPath: string): boolean {
  return patterns.some((pattern) => matchPath(pattern, reqPath));
}

function safeMatch(pattern: string, name: string): boolean {
  try {
    return pathMatch(pattern, name);
  } catch (err) {
    if (err instanceof BadPatternError) return false;
    throw err;
  }
}
