import { z } from 'zod';
import type { MarkResponse } from '../../../protocol/response.ts';
import type { Identity } from '../../identity.ts';
import type { WorldGateway } from '../../worlds/gateway.ts';
import type { ToolDefinition, ToolResult } from '../../mcp/definitions.ts';
import type { BrokerGraph } from '../graph-service.ts';
import { formatToolResult, gatewayFailure, toolError } from './tool-text.ts';
import { parseToolUrl, ToolUrlError, type ToolUrl } from './tool-url.ts';

/** Versions of a published graph kept by default: a generated artifact needs little history. */
export const defaultGraphRetention = 20;

const shape = {
  url: z.string().describe('mark:// URL to publish to, e.g. mark://root/graph.md'),
  expected_version: z
    .number()
    .describe('Current version of the target document (0 to create it); a mismatch answers conflict'),
  retention: z
    .number()
    .optional()
    .describe('Versions the world keeps after this write: default 20, 0 keeps every version'),
};

/** mark_graph_publish (go-broker-inventory §5.6): export the store and PUBLISH it with retention. */
export function markGraphPublish(graph: BrokerGraph): ToolDefinition<typeof shape> {
  return {
    name: 'mark_graph_publish',
    title: 'Publish the link graph',
    description:
      "Publish the broker's whole link graph, in /graph.md format, to a document in a world you may write to (typically mark://<hub>/graph.md, which every broker seeds from). Needs expected_version like mark_publish; conflicts are returned, not merged. Older versions beyond retention (default 20) are pruned.",
    inputSchema: shape,
    readOnly: false,
    async handler(args, ctx) {
      const checked = checkArguments(args);
      if (!('target' in checked)) return checked;
      const denied = writeGate(ctx.gateway, ctx.identity, checked.target.world);
      if (denied) return denied;
      const metadata: Record<string, string> = { agent: ctx.identity.email };
      if (checked.retention > 0) metadata.retention = String(checked.retention);
      const body = graph.exportMarkdown();
      let response: MarkResponse;
      try {
        response = await ctx.gateway.write(checked.target.world, ctx.identity, {
          verb: 'PUBLISH',
          path: checked.target.path,
          metadata: { ...metadata, 'expected-version': String(checked.expectedVersion) },
          body,
          signal: ctx.signal,
        });
      } catch (error) {
        return gatewayFailure('graph publish', checked.target.world, error);
      }
      const header = `Published graph (${graph.store.nodeCount} nodes, ${graph.store.edgeCount} edges) to ${args.url}\n`;
      return { text: header + formatToolResult(response, 'version', 'modified', 'server-version') };
    },
  };
}

type Checked = { target: ToolUrl; expectedVersion: number; retention: number };

function checkArguments(args: {
  url?: string;
  expected_version?: number;
  retention?: number | undefined;
}): Checked | ToolResult {
  if (!args.url) return toolError('url is required');
  let target: ToolUrl;
  try {
    target = parseToolUrl(args.url);
  } catch (error) {
    if (error instanceof ToolUrlError) return toolError(`invalid URL: ${error.message}`);
    throw error;
  }
  if (args.expected_version === undefined || !Number.isFinite(args.expected_version))
    return toolError('expected_version is required');
  const expectedVersion = Math.trunc(args.expected_version);
  if (expectedVersion < 0) return toolError('expected_version must be >= 0');
  const retention = Math.trunc(args.retention ?? defaultGraphRetention);
  if (!Number.isFinite(retention) || retention < 0) return toolError('retention must be >= 0 (0 keeps every version)');
  return { target, expectedVersion, retention };
}

/** The write gate every write tool applies before anything is sent (go-broker-inventory §4.3 mark_publish). */
function writeGate(gateway: WorldGateway, identity: Identity, world: string): ToolResult | null {
  if (!identity.emailVerified) return toolError('identity email is not verified');
  if (identity.email === '') return toolError('identity has no email claim');
  if (gateway.get(world) === undefined) return toolError(`world "${world}" is not configured`);
  if (!gateway.canWrite(world, identity)) return toolError(`write access denied for world "${world}"`);
  return null;
}
