import type { ToolDefinition } from '../definitions.ts';
import { markAppend } from './append.ts';
import { markBacklinks } from './backlinks.ts';
import { markGraph } from './graph-crawl.ts';
import { markGraphExport } from './graph-export.ts';
import { markGraphPublish } from './graph-publish.ts';
import { markArchive } from './archive.ts';
import { markDiff } from './diff.ts';
import { markDiscover } from './discover.ts';
import { markDoctor } from './doctor.ts';
import { markExplore } from './explore.ts';
import { markFetch } from './fetch.ts';
import { markIndex } from './index-tool.ts';
import { markList } from './list.ts';
import { markLookupAll } from './lookup-all.ts';
import { markLookup } from './lookup.ts';
import { markPublish } from './publish.ts';
import { markResolve } from './resolve.ts';
import { markSearch } from './search.ts';
import { markVersions } from './versions.ts';
import { markWorlds } from './worlds.ts';

/**
 * Every tool, in the reference broker's order (Go broker
 * `mcp_tools_list.go` `mcpToolNames`). The graph tools (mark_backlinks, mark_graph,
 * mark_graph_export, mark_graph_publish) are offered when the broker keeps a
 * link graph (it reaches them through the tool context) and sit after
 * mark_index. mark_search (cross-world full-text search) and mark_doctor (the knowledge
 * doctor) are ours, not in the reference, and come last, so the reference
 * tools keep their positions.
 */
export function allTools(options: { graph?: boolean } = {}): ToolDefinition[] {
  return [
    markFetch,
    markExplore,
    markList,
    markVersions,
    markLookup,
    markLookupAll,
    markPublish,
    markAppend,
    markArchive,
    markDiscover,
    markResolve,
    markIndex,
    ...(options.graph === true ? graphTools : []),
    markWorlds,
    markSearch,
    markDoctor,
    markDiff,
  ];
}

/** The tools backed by the link graph, in the reference's order. */
export const graphTools: readonly ToolDefinition[] = [markBacklinks, markGraph, markGraphExport, markGraphPublish];
