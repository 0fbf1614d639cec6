/**
 * The hub world: the one world whose `/graph.md` (the federation crawl's
 * output) may speak for every world, and which holds the org's publishing
 * standard under `/.well-known/demarkus/` (docs/knowledge.md). The broker
 * config key `hub` names it (docs/configuration.md); this is its default, in
 * the broker's shared kernel so that config, graph, knowledge, mcp and the
 * crawl CLI all read one name (scripts/check-imports.ts).
 */
export const defaultHubWorld = 'root';
