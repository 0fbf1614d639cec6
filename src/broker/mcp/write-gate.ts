import { controlKeys, type Metadata } from '../../protocol/metadata.ts';
import type { Identity } from '../identity.ts';
import type { ToolContext, ToolResult } from './definitions.ts';
import { goQuote, goValueString } from './go-format.ts';
import { knownWorldsHint } from '../worlds/world-aliases.ts';
import { toolError } from './tool-result.ts';

/**
 * The writer check every write tool runs before anything is sent (Go broker
 * `gateWrite`): a verified email, a
 * configured world, and the world's writer allowlist. A refused caller never
 * reaches the world. Returns the tool error to answer, or null to go on.
 */
export function gateWrite(ctx: ToolContext, world: string): ToolResult | null {
  if (!ctx.identity.emailVerified) return toolError('identity email is not verified');
  if (canonicalEmail(ctx.identity) === '') return toolError('identity has no email claim');
  if (ctx.gateway.get(world) === undefined)
    return toolError(`world ${goQuote(world)} is not configured (${knownWorldsHint(ctx.gateway.list())})`);
  if (!ctx.gateway.canWrite(world, ctx.identity)) return toolError(`write access denied for world ${goQuote(world)}`);
  return null;
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
