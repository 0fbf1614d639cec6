import { z } from 'zod';
import { escapeCell } from '../../../protocol/escape.ts';
import { descriptorLimits } from '../../knowledge/world-descriptor.ts';
import type { DescriptorState } from '../../knowledge/world-descriptors.ts';
import type { ToolContext } from '../definitions.ts';
import { unknownHealth, type WorldHealth } from '../../worlds/world-health.ts';
import { defineTool } from '../run-tool.ts';
import { structuredResult } from '../tool-result.ts';
import { countText } from '../../count-text.ts';
import { describe } from './descriptions.ts';

/**
 * Every configured world, readable by any signed-in caller, with whether this
 * caller may write to it (Go broker `MCP-API.md`, mark_worlds), then what the
 * world says of itself in its `/world.md` (src/broker/knowledge). The Go
 * table's columns come first and keep their order: agents parse them by
 * position; the descriptor columns and the world's health (what the broker
 * saw of it: src/broker/worlds/world-health.ts) are appended after them.
 */
export function worldsTable(ctx: ToolContext, descriptors: ReadonlyMap<string, DescriptorState> = new Map()): string {
  const worlds = ctx.gateway.list();
  let out = `status: ok\ncount: ${worlds.length}\n`;
  if (worlds.length === 0) return out;
  out += '\n| world | url | address | writable | title | summary | owners | holds | health |\n';
  out += '|-------|-----|---------|----------|-------|---------|--------|-------|--------|\n';
  for (const world of worlds) {
    const writable = ctx.gateway.canWrite(world.name, ctx.identity) ? 'yes' : 'no';
    const described = descriptorCells(descriptors.get(world.name));
    const health = escapeCell(healthCell(healthOf(ctx, world.name)));
    out += `| ${world.name} | ${world.publicUrl ?? ''} | mark://${world.address} | ${writable} | ${described} | ${health} |\n`;
  }
  return out;
}

function healthOf(ctx: ToolContext, world: string): WorldHealth {
  return ctx.gateway.health?.(world) ?? unknownHealth;
}

/** `up`, `unknown`, or the state with since when and why: `down since 2026-…: could not connect`. */
function healthCell(health: WorldHealth): string {
  if (health.state === 'up' || health.state === 'unknown') return health.state;
  return `${health.state} since ${health.since ?? '?'}: ${health.lastError ?? 'no answer'}`;
}

function descriptorCells(state: DescriptorState | undefined): string {
  if (state === undefined || state.kind === 'absent') return ' |  |  | ';
  if (state.kind === 'unknown') return ' | (world.md not available: the world did not answer) |  | ';
  if (state.kind === 'too-large')
    return ` | (world.md not shown: ${kib(state.bytes)}, over the ${kib(descriptorLimits.maxBytes)} a descriptor may be) |  | `;
  const { title, summary, owners, holds } = state.descriptor;
  return [title, summary, owners.join(', '), holds.join('; ')].map(escapeCell).join(' | ');
}

const kib = (bytes: number) => `${countText(Math.ceil(bytes / 1024))} KiB`;

const outputSchema = {
  status: z.literal('ok'),
  count: z.number().int(),
  worlds: z.array(
    z.object({
      name: z.string().describe('the name to use in mark://{world}/... URLs'),
      url: z.string().optional().describe("the world's public mark:// URL, when it has one"),
      address: z.string().describe("the world's internal mark:// address"),
      writable: z.boolean().describe('whether you may publish to it'),
      descriptor: z
        .object({
          title: z.string(),
          summary: z.string().describe('the one sentence under the H1 of its world.md'),
          owners: z.array(z.string()),
          holds: z.array(z.string()).describe('what goes where, from its world.md'),
        })
        .optional()
        .describe(
          'what the world says of itself in /world.md; absent when it has none, did not answer, or its world.md is too large',
        ),
      health: z
        .object({
          state: z
            .enum(['unknown', 'up', 'degraded', 'down'])
            .describe('up: answering; degraded: a recent call failed; down: calls fail fast until a probe answers'),
          since: z.string().optional().describe('RFC 3339 time the world entered this state'),
          last_error: z.string().optional().describe('the last failure'),
          last_error_at: z.string().optional(),
        })
        .describe("what this broker saw of the world's answers"),
    }),
  ),
};

/** The same worlds as data. */
export function worldsData(ctx: ToolContext, descriptors: ReadonlyMap<string, DescriptorState> = new Map()) {
  const worlds = ctx.gateway.list().map((world) => {
    const described = descriptors.get(world.name);
    return {
      name: world.name,
      ...(world.publicUrl ? { url: world.publicUrl } : {}),
      address: `mark://${world.address}`,
      writable: ctx.gateway.canWrite(world.name, ctx.identity),
      ...(described?.kind === 'present' ? { descriptor: described.descriptor } : {}),
      health: healthData(healthOf(ctx, world.name)),
    };
  });
  return { status: 'ok' as const, count: worlds.length, worlds };
}

function healthData(health: WorldHealth) {
  return {
    state: health.state,
    ...(health.since === undefined ? {} : { since: health.since }),
    ...(health.lastError === undefined ? {} : { last_error: health.lastError }),
    ...(health.lastErrorAt === undefined ? {} : { last_error_at: health.lastErrorAt }),
  };
}

/** How long mark_worlds waits for descriptors; a world slower than this shows as "not available" this time. */
const descriptorWaitMs = 1500;

export const markWorlds = defineTool({
  name: 'mark_worlds',
  title: 'List worlds',
  description: describe(
    'List the worlds of this knowledge system: the name to use in mark://{world}/... URLs, the public URL, the internal address, whether you may write to it, what each world says of itself in its world.md (title, summary, owners, what it holds), and its health (up, degraded, down since when and why).',
    'Call it first to see what exists, where a subject lives and where you can publish. Tools accept any of the three forms (mark://{world}/..., the url or the address followed by a path).',
  ),
  inputSchema: {},
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (_args, ctx) => {
    const names = ctx.gateway.list().map((world) => world.name);
    const descriptors = ctx.knowledge
      ? await ctx.knowledge.descriptors.describeAll(names, { waitMs: descriptorWaitMs, signal: ctx.signal })
      : new Map<string, DescriptorState>();
    return structuredResult(worldsTable(ctx, descriptors), worldsData(ctx, descriptors));
  },
});
