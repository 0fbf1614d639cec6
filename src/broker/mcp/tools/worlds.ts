import { defineTool } from '../run-tool.ts';
import { textResult } from '../tool-result.ts';
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

export const markWorlds = defineTool({
  name: 'mark_worlds',
  title: 'List worlds',
  description: describe(
    'List the worlds of this knowledge system: the name to use in mark://{world}/... URLs, the public URL, the internal address, and whether you may write to it.',
    'Call it first to see what exists and where you can publish.',
  ),
  inputSchema: {},
  readOnly: true,
  handler: async (_args, ctx) => textResult(worldsTable(ctx)),
});
