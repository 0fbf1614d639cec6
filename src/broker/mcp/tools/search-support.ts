import { isValidRequestPath } from '../../../protocol/paths.ts';
import { maxRequestPathBytes } from '../../../protocol/limits.ts';
import type { LookupFn, RememberedSearch, WorldRow } from '../../search/index.ts';
import type { ToolContext } from '../definitions.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { toolErrorText } from '../tool-result.ts';

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

/** A world's failure in its own words: the world's status, the table problem, or the gateway's reason. */
export function failureMessage(verb: string, world: string, error: unknown): string {
  const text = toolErrorText(verb, world, error);
  return text.startsWith(`${verb} failed: `) ? text.slice(`${verb} failed: `.length) : text;
}

/** Mark SPEC §11.2 path rules (Go `protocol.ValidateRequestPath`), worded for the agent. */
export function scopeError(scope: string): string | null {
  if (isValidRequestPath(scope)) return null;
  if (!scope.startsWith('/')) return `path must start with "/": ${scope}`;
  if (Buffer.byteLength(scope) > maxRequestPathBytes) return `path exceeds ${maxRequestPathBytes} bytes`;
  return 'path contains control characters';
}
