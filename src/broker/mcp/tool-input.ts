import type { MarkResponse } from '../../protocol/response.ts';
import { isWriteStored } from '../../protocol/status.ts';
import type { MarkCall } from '../../transport/mark-client.ts';
import type { GraphService, ToolContext, ToolResult } from './definitions.ts';
import { toolError, toolErrorFor } from './tool-result.ts';
import { parseToolUrl, ToolUrlError, type ToolUrl } from './tool-url.ts';
import { canonicalWorldUrl } from '../worlds/world-aliases.ts';

/**
 * Steps every world tool shares: read the URL argument, in any address form
 * of a known world (a bad one is the reference's `invalid URL: <reason>`), then ask the world and turn a failure
 * to get any answer into the reference's `<verb> failed: ...` tool error.
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ToolResult };

/** The arguments that hold a document URL; only `url` is refused as a plain `invalid URL` (the reference's texts). */
export type UrlArgumentName = 'url' | 'source' | 'target' | 'index';

/**
 * A URL argument, or its refusal. An empty one is missing, `<name> is required`,
 * as the Go reference's handlers check before parsing (go-broker-inventory.md
 * §4.2), in every tool alike; a bad one is `invalid URL: <reason>` (`invalid
 * <name> URL: <reason>` for the others).
 */
export function urlArgument(ctx: ToolContext, raw: string, name: UrlArgumentName = 'url'): Outcome<ToolUrl> {
  if (raw === '') return { ok: false, error: toolError(`${name} is required`) };
  try {
    return { ok: true, value: parseToolUrl(raw, ctx.gateway.list()) };
  } catch (error) {
    if (!(error instanceof ToolUrlError)) throw error;
    const prefix = name === 'url' ? 'invalid URL' : `invalid ${name} URL`;
    return { ok: false, error: toolError(`${prefix}: ${error.message}`) };
  }
}

export async function readWorld(
  ctx: ToolContext,
  verb: string,
  world: string,
  call: Omit<MarkCall, 'signal'>,
): Promise<Outcome<MarkResponse>> {
  return worldOutcome(verb, world, () => ctx.gateway.read(world, { ...call, signal: ctx.signal }));
}

export async function writeWorld(
  ctx: ToolContext,
  verb: string,
  world: string,
  call: Omit<MarkCall, 'signal'>,
): Promise<Outcome<MarkResponse>> {
  return worldOutcome(verb, world, async () => {
    const response = await ctx.gateway.write(world, ctx.identity, { ...call, signal: ctx.signal });
    // A changed /graph.md is what every replica seeds its backlinks from.
    if (isWriteStored(response.status)) ctx.graph?.published(world, call.path);
    return response;
  });
}

/** A world's answer, or the tool error its failure reads as. */
async function worldOutcome(
  verb: string,
  world: string,
  send: () => Promise<MarkResponse>,
): Promise<Outcome<MarkResponse>> {
  try {
    return { ok: true, value: await send() };
  } catch (error) {
    return { ok: false, error: toolErrorFor(verb, world, error) };
  }
}

/**
 * The broker's link graph for the graph tools. They are only offered when the
 * broker runs a graph (src/broker/mcp/tools/index.ts), so a missing one is a
 * wiring mistake that the caller is told about plainly.
 */
export function linkGraph(ctx: ToolContext): Outcome<GraphService> {
  if (ctx.graph === undefined) return { ok: false, error: toolError('this broker keeps no link graph') };
  return { ok: true, value: ctx.graph };
}

/**
 * The first steps of every graph tool that takes a document: the graph, then
 * the `url` argument, with `url` rewritten to the world's logical name when it
 * was given in another of the world's address forms (the graph keys nodes by
 * logical URL).
 */
export function graphTarget(
  ctx: ToolContext,
  url: string,
): Outcome<{ graph: GraphService; target: ToolUrl; url: string }> {
  const graph = linkGraph(ctx);
  if (!graph.ok) return graph;
  const target = urlArgument(ctx, url);
  if (!target.ok) return target;
  return {
    ok: true,
    value: { graph: graph.value, target: target.value, url: canonicalWorldUrl(url, ctx.gateway.list()) },
  };
}
