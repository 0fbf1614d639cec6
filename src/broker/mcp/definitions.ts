import type { z } from 'zod';
import type { Identity } from '../identity.ts';
import type { DoctorRuns } from '../knowledge/doctor/report-cache.ts';
import type { PublishingStandard } from '../knowledge/publishing-standard.ts';
import type { WorldDescriptors } from '../knowledge/world-descriptors.ts';
import type { WorldDocumentCache } from '../knowledge/world-document-cache.ts';
import type { WorldGateway, WorldInfo } from '../worlds/gateway.ts';
import type { BrokerGraph } from '../graph/index.ts';
import type { SearchStatsMemory } from '../search/index.ts';

/**
 * SDK-neutral definitions of what the MCP server offers. The HTTP layer
 * registers them with the MCP SDK; tools themselves know nothing of JSON-RPC.
 */

/** Per-session memory (e.g. mark_fetch "unchanged" notices); bounded by the session store. */
export interface SessionState {
  readonly id: string | undefined;
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T): void;
  /**
   * Runs `listener` whenever the memory is replaced by another replica's copy
   * (a session shared through Redis, src/broker/http/mcp-endpoint.ts), so what
   * a tool derived from the memory can be derived again.
   */
  onRestore?(listener: () => void): void;
}

/**
 * The broker's link graph as the tools use it: mark_explore's backlinks and the
 * graph tools (mark_backlinks, mark_graph, mark_graph_export,
 * mark_graph_publish). `BrokerGraph` (src/broker/graph) is the implementation.
 */
export type GraphService = Pick<
  BrokerGraph,
  'seed' | 'readableBacklinks' | 'readableExportPage' | 'readableExport' | 'crawl' | 'store' | 'published'
>;

export type ToolContext = {
  gateway: WorldGateway;
  identity: Identity;
  session: SessionState;
  signal: AbortSignal;
  now: () => Date;
  /** The link graph, when the broker has one: the graph tools need it; mark_explore says "none recorded" without it. */
  graph?: GraphService;
  /** World descriptors and the org's publishing standard (src/broker/knowledge); absent, tools work without them. */
  knowledge?: KnowledgeServices;
  /** The statistics cross-world searches last saw (src/broker/search/stats-memory.ts); absent, every search takes two rounds. */
  searchStats?: SearchStatsMemory;
};

export type KnowledgeServices = {
  documents: WorldDocumentCache;
  descriptors: WorldDescriptors;
  standard: PublishingStandard;
  /** mark_doctor's finished reports and runs in flight; absent, the tool keeps one set per process. */
  doctorRuns?: DoctorRuns;
};

/**
 * The text result the Go broker's formatToolResult produces, byte for byte;
 * `isError` for genuine failures only. `structured` is the same answer as data
 * (MCP `structuredContent`, checked against the tool's `outputSchema`); every
 * answer that is not an error has it.
 */
export type ToolResult = { text: string; isError?: boolean; structured?: Record<string, unknown> };

/**
 * What a call does besides answering, shown to clients as MCP ToolAnnotations hints (spec 2025-06-18,
 * "ToolAnnotations"). A hint left out reads as its default (destructive, not idempotent, open world),
 * which fits none of our tools, so every tool states each one
 * (src/broker/http/register-definitions.ts turns them into the hints).
 */
export type ToolEffects =
  | {
      /** Changes nothing (readOnlyHint). */
      readOnly: true;
      /** Reaches beyond the organisation's worlds (openWorldHint). */
      openWorld: boolean;
    }
  | {
      readOnly: false;
      /** May delete or overwrite what was there (destructiveHint); false when it only adds or can be undone. */
      destructive: boolean;
      /** A second identical call changes nothing more (idempotentHint). */
      idempotent: boolean;
      openWorld: boolean;
    };

export type ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> = ToolEffects & {
  name: string;
  title: string;
  /** Precise and short: when an agent should use this tool, and what it returns. */
  description: string;
  inputSchema: Shape;
  /** The shape of `structured` in every answer that is not an error (MCP `outputSchema`). */
  outputSchema?: z.ZodRawShape;
  handler: (args: z.infer<z.ZodObject<Shape>>, ctx: ToolContext) => Promise<ToolResult>;
};

export type ResourceContents = { uri: string; mimeType: string; text: string };

export type ResourceTemplateDefinition = {
  name: string;
  uriTemplate: string;
  description: string;
  mimeType: string;
  read: (uri: string, ctx: ToolContext) => Promise<ResourceContents>;
  /** URIs the template's pattern does not match that `read` takes all the same. */
  alsoReads?: (uri: string) => boolean;
};

export type ConcreteResourceDefinition = {
  name: string;
  uri: string;
  description: string;
  mimeType: string;
};

export type RenderedPrompt = { description: string; text: string };

export type PromptDefinition = {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean }>;
  render: (
    args: Record<string, string | undefined>,
    ctx: { now: () => Date; worlds: readonly WorldInfo[]; knowledge?: KnowledgeServices },
  ) => RenderedPrompt | Promise<RenderedPrompt>;
};
