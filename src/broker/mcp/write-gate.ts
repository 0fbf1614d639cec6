import { controlKeys, type Metadata } from '../../protocol/metadata.ts';
import { canonicalPath } from '../../protocol/paths.ts';
import { isGeneratedDocument } from '../graph/federation/hub-outputs.ts';
import { defaultHubWorld } from '../hub-world.ts';
import type { Identity } from '../identity.ts';
import type { ToolContext, ToolResult } from './definitions.ts';
import { goQuote, goValueString, qualifiedWorldUrl } from './go-format.ts';
import { knownWorldsHint } from '../worlds/world-aliases.ts';
import { toolError } from './tool-result.ts';

/**
 * The writer check every write tool runs before anything is sent (Go broker
 * `gateWrite`): a verified email, a
 * configured world, the world's writer allowlist, and a path the broker does
 * not reserve for the federation crawl. A refused caller never reaches the
 * world. `verb` names the write in that last refusal. Returns the tool error
 * to answer, or null to go on.
 */
export function gateWrite(ctx: ToolContext, verb: string, world: string, path: string): ToolResult | null {
  if (!ctx.identity.emailVerified) return toolError('identity email is not verified');
  if (canonicalEmail(ctx.identity) === '') return toolError('identity has no email claim');
  if (ctx.gateway.get(world) === undefined)
    return toolError(`world ${goQuote(world)} is not configured (${knownWorldsHint(ctx.gateway.list())})`);
  if (!ctx.gateway.canWrite(world, ctx.identity)) return toolError(`write access denied for world ${goQuote(world)}`);
  return crawlOutputRefusal(ctx, verb, world, path);
}

/**
 * The hub's generated documents (hub-outputs.ts `isGeneratedDocument`: `/graph.md`,
 * `/index/<host:port>.md`, `/.demarkus/**`) are the federation crawl's output: every broker seeds
 * the hub's `/graph.md` as speaking for every world, and the crawl reads its next run back from all
 * three. The crawl writes them through the world gateway (federation/hub-publish.ts), never through
 * a tool, so no caller writes them, whatever the hub's allowlist says
 * (test/security/hub-generated-writes.test.ts). The path is compared as the world stores it
 * (`canonicalPath`, Go's `path.Clean`), so `//graph.md` is `/graph.md`.
 */
function crawlOutputRefusal(ctx: ToolContext, verb: string, world: string, path: string): ToolResult | null {
  const hub = ctx.knowledge?.standard.hub ?? defaultHubWorld;
  const stored = canonicalPath(path);
  if (world !== hub || !isGeneratedDocument(stored)) return null;
  return toolError(
    `${verb} refused: ${qualifiedWorldUrl(world, stored)} is written only by the federation crawl (demarkus-broker crawl): the hub's /graph.md, /index/<host:port>.md and /.demarkus/ documents are its output, which every broker trusts for every world`,
  );
}

export function canonicalEmail(identity: Identity): string {
  return identity.email.trim().toLowerCase();
}

/**
 * Publisher metadata for a write: the caller's keys stringified as Go's `%v`
 * does, then `agent` set to the caller's email (the broker owns it: a caller's
 * own `agent` is ignored). Control keys (`auth`, `expected-version`, ...) are
 * dropped: they steer the request and are never stored, so a caller must not
 * be able to set them through metadata.
 */
export function writeMetadata(identity: Identity, callerMetadata?: Readonly<Record<string, unknown>>): Metadata {
  const out: Metadata = {};
  for (const [key, value] of Object.entries(callerMetadata ?? {})) {
    if (key === 'agent' || controlKeys.has(key)) continue;
    out[key] = goValueString(value);
  }
  out.agent = canonicalEmail(identity);
  return out;
}
