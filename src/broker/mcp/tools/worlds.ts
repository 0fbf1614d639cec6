import { defineTool } from '../run-tool.ts';
import { z } from 'zod';
import { structuredResult } from '../tool-result.ts';
import type { ToolContext } from '../definitions.ts';
import { describe } from './descriptions.ts';

/**
 * Every configured world, readable by any signed-in caller, with whether this
 * caller may write to it (go-broker-inventory §4.3 mark_worlds). The columns
 * are append-only: agents parse them by position.
 */
export function worldsTable(ctx: ToolContext): string {
  const worlds = ctx.gateway.list();
  let out = `status: ok\ncount: ${worlds.length}\n`;
  if (worlds.length === 0) return out;
  out += '\n| world | url | address | writable |\n|-------|-----|---------|----------|\n';
  for (const world of worlds) {
    const writable = ctx.gateway.canWrite(world.name, ctx.identity) ? 'yes' : 'no';
    out += `| ${world.name} | ${world.publicUrl ?? ''} | mark://${world.address} | ${writable} |\n`;
  }
  return out;
}

const outputSchema = {
  status: z.literal('ok'),
  count: z.number().int(),
  worlds: z.array(
    z.object({
      name: z.string().describe('the name to use in mark://{world}/... URLs'),
      url: z.string().optional().describe("the world's public mark:// URL, when it has one"),
      address: z.string().describe("the world's internal mark:// address"),
      writable: z.boolean().describe('whether you may publish to it'),
    }),
  ),
};

/** The same worlds as data. */
export function worldsData(ctx: ToolContext) {
  const worlds = ctx.gateway.list().map((world) => ({
    name: world.name,
    ...(world.publicUrl ? { url: world.publicUrl } : {}),
    address: `mark://${world.address}`,
    writable: ctx.gateway.canWrite(world.name, ctx.identity),
  }));
  return { status: 'ok' as const, count: worlds.length, worlds };
}

export const markWorlds = defineTool({
  name: 'mark_worlds',
  title: 'List worlds',
  description: describe(
    'List the worlds of this knowledge system: the name to use in mark://{world}/... URLs, the public URL, the internal address, and whether you may write to it.',
    'Call it first to see what exists and where you can publish.',
  ),
  inputSchema: {},
  outputSchema,
  readOnly: true,
  handler: async (_args, ctx) => structuredResult(worldsTable(ctx), worldsData(ctx)),
});
