import { seedWorlds } from './seed-documents.ts';

/**
 * The hub's `/graph.md` for the seed set, in the export format the federation
 * crawler publishes (Go `client/graphstore/export.go` `BuildExport`): rows keyed by each world's dial
 * address, which the broker translates back to `mark://<world>/...`.
 */
export function seedGraphMarkdown(addressOf: (world: string) => string, exportedAt: Date): string {
  const url = (world: string, path: string) => `mark://${addressOf(world)}${path}`;
  const nodes: Array<{ url: string; title: string; links: number }> = [];
  const edges: Array<{ from: string; to: string; rel: string; label: string; anchor: string }> = [];
  for (const world of seedWorlds) {
    for (const doc of world.documents) {
      const from = url(world.name, doc.path);
      const links = [...doc.body.matchAll(/\[([^\]]+)\]\(([^)]+)\)/g)];
      nodes.push({
        url: from,
        title: doc.metadata.title ?? doc.body.match(/^# (.+)$/m)?.[1] ?? doc.path,
        links: links.length,
      });
      for (const [, label, target] of links)
        edges.push({ from, to: resolveLink(world.name, doc.path, target!, url), rel: '', label: label!, anchor: '' });
      const supersedes = doc.metadata['rel-supersedes'];
      if (supersedes) edges.push({ from, to: url(world.name, supersedes), rel: 'supersedes', label: '', anchor: '' });
    }
  }
  nodes.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  edges.sort((a, b) => (`${a.from}\0${a.to}\0${a.rel}` < `${b.from}\0${b.to}\0${b.rel}` ? -1 : 1));
  const cell = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('|', '\\|').replaceAll('\n', ' ');
  let out = `# Document Graph\n\n> Exported: ${exportedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}\n> Nodes: ${nodes.length}\n> Edges: ${edges.length}\n`;
  out += '\n## Nodes\n\n| URL | Title | Status | Links |\n|-----|-------|--------|-------|\n';
  for (const node of nodes) out += `| [${node.url}](${node.url}) | ${cell(node.title)} | ok | ${node.links} |\n`;
  out += '\n## Edges\n\n| From | To | Rel | Label | Anchor | Count |\n|------|----|-----|-------|--------|-------|\n';
  for (const edge of edges)
    out += `| ${edge.from} | ${edge.to} | ${edge.rel} | ${cell(edge.label)} | ${edge.anchor} | 1 |\n`;
  return out;
}

function resolveLink(
  world: string,
  fromPath: string,
  target: string,
  url: (world: string, path: string) => string,
): string {
  const cross = /^mark:\/\/([^/]+)(\/.*)$/.exec(target);
  if (cross) return url(cross[1]!, cross[2]!);
  const base = new URL(fromPath, 'http://x');
  return url(world, new URL(target, base).pathname);
}
