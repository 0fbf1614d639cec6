/**
 * The tools of the Go reference broker other than its graph tools, in its
 * order (Go broker `mcp_tools_list.go` `mcpToolNames`, as
 * src/broker/mcp/tools/index.ts keeps it). Written out, not read from the
 * registry, so that the registry's unit test (test/broker/mcp/registry.test.ts)
 * and the end-to-end listing (test/e2e/broker-mcp.test.ts) hold the broker to them.
 */
export const goReferenceToolNames = [
  'mark_fetch',
  'mark_explore',
  'mark_list',
  'mark_versions',
  'mark_lookup',
  'mark_lookup_all',
  'mark_publish',
  'mark_append',
  'mark_archive',
  'mark_discover',
  'mark_resolve',
  'mark_index',
  'mark_worlds',
] as const;
