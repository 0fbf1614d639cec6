import { isValidRequestPath } from '../../../protocol/paths.ts';
import { maxRequestPathBytes } from '../../../protocol/limits.ts';
import { WorldSearchError, type LookupFn, type RememberedSearch, type WorldRow } from '../../search/index.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { toolError, toolErrorText } from '../tool-result.ts';

/** What the full-text tools (mark_search, mark_lookup_all `match: body`) share. */

/** The search module's LOOKUP calls, through the gateway (reads carry no token). */
export function gatewayLookup(ctx: ToolContext): LookupFn {
  return (world, call) => ctx.gateway.read(world, { ...call, signal: ctx.signal });
}

/** The caller's remembered search statistics for this scope and filter (src/broker/search/stats-memory.ts). */
export function rememberedSearch(
  ctx: ToolContext,
  scope: string,
  filter: string | undefined,
): RememberedSearch | undefined {
  return ctx.searchStats && { memory: ctx.searchStats, where: { subject: ctx.identity.subject, scope, filter } };
}

/** `mark://{world}/{path}` plus the section anchor, when the row is a section. */
export function rowUrl(row: Pick<WorldRow, 'world' | 'path' | 'anchor'>): string {
  return qualifiedWorldUrl(row.world, row.path) + (row.anchor === '' ? '' : `#${row.anchor}`);
}

/** A world a fan-out could not use: its failure for the agent, and the status it answered, if it answered one. */
export type FailedWorld = { world: string; message: string; status?: string };

/** A world's failure in its own words: the world's status, the table problem, or the gateway's reason. */
export function failedWorld(verb: string, world: string, error: unknown): FailedWorld {
  const text = toolErrorText(verb, world, error);
  const message = text.startsWith(`${verb} failed: `) ? text.slice(`${verb} failed: `.length) : text;
  return error instanceof WorldSearchError ? { world, message, status: error.status } : { world, message };
}

/** The tool error when every world of a fan-out failed: one sentence for a document given as the scope, else each world's failure. */
export function allWorldsFailed(verb: string, scope: string, failures: readonly FailedWorld[]): ToolResult {
  const documentScope = documentScopeRefusal(scope, failures);
  if (documentScope !== undefined) return toolError(documentScope);
  return toolError(`${verb} failed in all worlds: ${failures.map((f) => `${f.world}: ${f.message}`).join('; ')}`);
}

/**
 * What to say when a scope that is not a directory (no trailing `/`) finds nothing: LOOKUP answers
 * not-found for a document's path, so a document URL given as the scope read as "not found" for a
 * document that exists. `directory` is the example to offer, in the form the argument takes.
 */
export function directoryScopeText(directory: string): string {
  return `scope must be a directory, e.g. ${directory}; to read a document use mark_fetch`;
}

/** The directory a path is in, with its trailing `/` (`/docs/a.md` → `/docs/`). */
export function parentDirectory(path: string): string {
  return path.slice(0, path.lastIndexOf('/') + 1) || '/';
}

/**
 * Every world of a fan-out answered not-found for a scope without a trailing `/`: the scope is most
 * likely a document, and the refusal says so instead of listing each world's not-found.
 */
function documentScopeRefusal(scope: string, failures: readonly FailedWorld[]): string | undefined {
  if (scope.endsWith('/') || failures.length === 0) return undefined;
  if (!failures.every((failure) => failure.status === 'not-found')) return undefined;
  return `${directoryScopeText(parentDirectory(scope))} (no world has a directory ${scope})`;
}

/** Mark SPEC §11.2 path rules (Go `protocol.ValidateRequestPath`), worded for the agent. */
export function scopeError(scope: string): string | null {
  if (isValidRequestPath(scope)) return null;
  if (!scope.startsWith('/')) return `path must start with "/": ${scope}`;
  if (Buffer.byteLength(scope) > maxRequestPathBytes) return `path exceeds ${maxRequestPathBytes} bytes`;
  return 'path contains control characters';
}
