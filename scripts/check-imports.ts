/**
 * Fails when a module imports against the direction of the layers
 * (ARCHITECTURE.md): errors (the coded-error base every layer shares) and
 * markdown import nothing of ours, protocol and search only those two,
 * transport only protocol, world and broker never reach into each other, and nothing below the
 * wiring layers imports cli or dev.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

const allowed: Record<string, readonly string[]> = {
  errors: [],
  markdown: [],
  protocol: ['errors', 'markdown'],
  search: ['errors', 'markdown'],
  transport: ['errors', 'protocol'],
  world: ['errors', 'markdown', 'protocol', 'transport', 'search'],
  broker: ['errors', 'markdown', 'protocol', 'transport', 'search'],
  dev: ['errors', 'markdown', 'protocol', 'transport', 'search', 'world', 'broker', 'cli'],
  cli: ['errors', 'markdown', 'protocol', 'transport', 'search', 'world', 'broker', 'dev'],
};

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

const layerOf = (file: string) => relative(src, file).split('/')[0]!;
const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

const problems: string[] = [];
for (const file of sourceFiles(src)) {
  const layer = layerOf(file);
  const permitted = allowed[layer];
  if (permitted === undefined) {
    problems.push(`${relative(root, file)}: layer "${layer}" is not in the layer table`);
    continue;
  }
  for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
    const target = resolve(dirname(file), match[1] ?? match[2]!);
    if (!target.startsWith(`${src}/`)) continue;
    const targetLayer = layerOf(target);
    if (targetLayer !== layer && !permitted.includes(targetLayer)) {
      problems.push(
        `${relative(root, file)} imports ${relative(root, target)}: ${layer} must not depend on ${targetLayer}`,
      );
    }
  }
}

if (problems.length > 0) {
  console.error(`import direction check failed:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('import direction check: ok');
