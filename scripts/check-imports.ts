/**
 * Fails when a module imports against the direction of the layers
 * (ARCHITECTURE.md): errors (the coded-error base every layer shares),
 * markdown, files (durable file writes) and concurrency (the one limiter)
 * import nothing of ours; protocol and search only errors and markdown;
 * transport only protocol and concurrency; world and broker never reach into
 * each other; and nothing below the wiring layers imports cli or dev. Inside
 * src/broker the same holds for its folders (`brokerModules`): each imports
 * only the siblings listed for it and the broker's shared kernel files, so
 * the folders form no cycle.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const allowed: Record<string, readonly string[]> = {
  errors: [],
  markdown: [],
  files: [],
  concurrency: [],
  protocol: ['errors', 'markdown'],
  search: ['errors', 'markdown'],
  transport: ['errors', 'concurrency', 'protocol'],
  world: ['errors', 'markdown', 'files', 'concurrency', 'protocol', 'transport', 'search'],
  broker: ['errors', 'markdown', 'files', 'concurrency', 'protocol', 'transport', 'search'],
  dev: ['errors', 'markdown', 'files', 'concurrency', 'protocol', 'transport', 'search', 'world', 'broker', 'cli'],
  cli: ['errors', 'markdown', 'files', 'concurrency', 'protocol', 'transport', 'search', 'world', 'broker', 'dev'],
};

/**
 * The broker's folders and the siblings each may import. The files directly in
 * src/broker are either the shared kernel every folder may use
 * (`brokerKernel`) or the wiring (broker.ts, definitions.ts, ...), which may
 * import every folder and which no folder imports.
 */
const brokerModules: Record<string, readonly string[]> = {
  config: [],
  worlds: ['config'],
  state: ['config', 'worlds'],
  auth: ['config', 'state'],
  graph: ['worlds'],
  search: [],
  knowledge: ['graph', 'worlds'],
  mcp: ['worlds', 'graph', 'knowledge', 'search'],
  kubernetes: ['config', 'state', 'worlds'],
  changes: ['worlds', 'graph', 'knowledge', 'mcp'],
  http: ['auth', 'changes', 'config', 'mcp', 'state', 'worlds'],
};
const brokerKernel = new Set(['identity.ts', 'fan-out.ts', 'hub-world.ts', 'count-text.ts']);

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Every import against the layer or broker-module tables under `src`, as one line each. */
export function importProblems(src: string): string[] {
  const layerOf = (file: string) => relative(src, file).split('/')[0]!;
  /** `config`, `mcp`, ... for a file in a broker folder; the file name for one directly in src/broker. */
  const brokerPart = (file: string) => relative(join(src, 'broker'), file).split('/')[0]!;
  const problems: string[] = [];
  for (const file of sourceFiles(src)) {
    const layer = layerOf(file);
    const permitted = allowed[layer];
    const shown = relative(dirname(src), file);
    if (permitted === undefined) {
      problems.push(`${shown}: layer "${layer}" is not in the layer table`);
      continue;
    }
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const target = resolve(dirname(file), match[1] ?? match[2]!);
      if (!target.startsWith(`${src}/`)) continue;
      const targetLayer = layerOf(target);
      const imports = `${shown} imports ${relative(dirname(src), target)}`;
      if (targetLayer !== layer && !permitted.includes(targetLayer)) {
        problems.push(`${imports}: ${layer} must not depend on ${targetLayer}`);
        continue;
      }
      if (layer !== 'broker' || targetLayer !== 'broker') continue;
      const [from, to] = [brokerPart(file), brokerPart(target)];
      const fromModule = brokerModules[from];
      if (from === to || (fromModule === undefined && from.endsWith('.ts') && !brokerKernel.has(from))) continue;
      if (fromModule === undefined && !from.endsWith('.ts')) {
        problems.push(`${shown}: broker folder "${from}" is not in the module table`);
        break;
      }
      const allowedTo = to.endsWith('.ts') ? brokerKernel.has(to) : (fromModule ?? []).includes(to);
      if (!allowedTo) problems.push(`${imports}: broker/${from.replace(/\.ts$/, '')} must not depend on broker/${to}`);
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = importProblems(join(resolve(import.meta.dirname, '..'), 'src'));
  if (problems.length > 0) {
    console.error(`import direction check failed:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log('import direction check: ok');
}
