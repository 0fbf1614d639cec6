/**
 * A seeded, realistic-looking document corpus for catalog tests and the LOOKUP
 * benchmark: Zipf-distributed tags and title words (a few very common, a long
 * tail), nested directories, declared and H1 titles, default and explicit
 * importance, and second-precision modified times.
 */
import type { CatalogSource } from '../../../src/world/catalog/entry.ts';

/** mulberry32: small, fast and good enough to make corpora reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const commonTags = [
  'go',
  'rust',
  'auth',
  'design',
  'api',
  'adr',
  'ops',
  'kubernetes',
  'security',
  'testing',
  'storage',
  'network',
  'frontend',
  'backend',
  'database',
  'oncall',
  'incident',
  'roadmap',
  'hiring',
  'metrics',
  'quic',
  'mcp',
  'oauth',
  'search',
];
const commonWords = [
  'guide',
  'design',
  'notes',
  'overview',
  'auth',
  'middleware',
  'service',
  'deployment',
  'incident',
  'review',
  'migration',
  'plan',
  'api',
  'storage',
  'cache',
  'index',
  'search',
  'token',
  'broker',
  'world',
  'catalog',
  'release',
  'policy',
  'runbook',
  'postmortem',
  'onboarding',
  'architecture',
  'protocol',
  'client',
  'server',
  'quota',
  'latency',
  'graph',
  'schema',
];
const syllables = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tor',
  'va',
  'qu',
  'sel',
  'dan',
  'po',
  'ix',
  'ul',
  'ber',
  'na',
  'gro',
  'fi',
  'st',
  'ae',
];
const types = ['Note', 'Document', 'ADR', 'Guide', 'Runbook'];
const projects = ['broker', 'universe', 'atlas', 'hermes', 'zephyr', 'orion', 'lumen', 'nimbus', 'vega', 'helix'];

export interface CorpusOptions {
  readonly seed?: number;
  readonly areas?: number;
}

export interface Corpus {
  readonly documents: CatalogSource[];
  /** Vocabulary the generator drew from, most common first, for building queries. */
  readonly tags: readonly string[];
  readonly words: readonly string[];
  readonly areas: readonly string[];
}

export function generateCorpus(count: number, options: CorpusOptions = {}): Corpus {
  const random = seededRandom(options.seed ?? 1);
  const words = [...commonWords, ...inventWords(random, 4000)];
  const tags = [...commonTags, ...Array.from({ length: 400 }, (_, i) => `topic-${i}`)];
  const areas = Array.from({ length: options.areas ?? 12 }, (_, i) => `area-${i}`);
  const pickWord = zipf(random, words);
  const pickTag = zipf(random, tags);
  const base = Date.UTC(2024, 0, 1) / 1000;
  const documents: CatalogSource[] = [];
  for (let n = 0; n < count; n++) {
    const titleWords = Array.from({ length: 2 + Math.floor(random() * 6) }, pickWord);
    const title = titleWords.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
    const metadata: Record<string, string> = {
      tags: [...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, pickTag))].join(', '),
      type: types[Math.floor(random() * types.length)]!,
      project: projects[Math.floor(random() * projects.length)]!,
    };
    if (random() < 0.6) metadata.importance = (Math.round(random() * 100) / 100).toString();
    if (random() < 0.3) metadata.title = title;
    const area = areas[Math.floor(random() * areas.length)]!;
    const path = `/${area}/sub-${Math.floor(random() * 8)}/${titleWords[0]}-${n}.md`;
    const body =
      random() < 0.1 ? `\`\`\`sh\n# not a title\n\`\`\`\n# ${title}\n\nBody ${n}.\n` : `# ${title}\n\nBody ${n}.\n`;
    documents.push({ path, body, metadata, modified: new Date((base + Math.floor(random() * 63_072_000)) * 1000) });
  }
  return { documents, tags, words, areas };
}

function inventWords(random: () => number, count: number): string[] {
  const out = new Set<string>();
  while (out.size < count) {
    const length = 2 + Math.floor(random() * 3);
    out.add(Array.from({ length }, () => syllables[Math.floor(random() * syllables.length)]!).join(''));
  }
  return [...out];
}

/** Picks items with probability ∝ 1 / rank^1.1, precomputed as a cumulative table. */
export function zipf<T>(random: () => number, items: readonly T[]): () => T {
  const weights = items.map((_, rank) => 1 / (rank + 1) ** 1.1);
  const total = weights.reduce((a, b) => a + b, 0);
  let running = 0;
  const cumulative = weights.map((w) => (running += w / total));
  return () => {
    const r = random();
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (cumulative[mid]! < r) low = mid + 1;
      else high = mid;
    }
    return items[low]!;
  };
}
