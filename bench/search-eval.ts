/**
 * Retrieval-quality benchmark: the 16 held-out questions of the lexical-search spec
 * §5 over the 171-node spex corpus, scored as recall@1/3/5 and MRR beside the
 * reference ranker's figures (reference-results.json, same corpus, same labels).
 *
 * Document-level rank: rows are collapsed to documents in order of first appearance;
 * rank = 1-based position of the first document matching any label among the first
 * 10 documents (lexical-search spec §5 protocol).
 *
 * `runSearchEval(searchFn)` runs the same questions through any search, e.g. a real
 * world server's LOOKUP `match: body` after publishing `spexCorpus()` documents.
 *
 *   node bench/search-eval.ts            # both match modes of src/search
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SearchIndex } from '../src/search/index.ts';
import type { MatchMode, SearchDoc } from '../src/search/index.ts';

const dataDir = process.env.SPEX_BENCHDATA ?? '/work/shared/benchdata/spex';
const docsPerQuestion = 10;
const rowsPerQuestion = 200;

interface SpexNode {
  id: string;
  title: string;
  path: string;
  desc: string;
  body: string;
}
interface Question {
  case: string;
  query: string;
  expect: string[];
}

/** Returns row paths in rank order; an `#anchor` suffix is ignored. */
export type SearchFn = (query: string, limit: number) => Promise<readonly { id: string }[]> | readonly { id: string }[];

export interface CaseResult {
  case: string;
  query: string;
  rank: number;
  referenceRank: number;
  topDocs: string[];
}
export interface EvalSummary {
  recall1: number;
  recall3: number;
  recall5: number;
  mrr: number;
}
export interface EvalResult {
  cases: CaseResult[];
  ours: EvalSummary;
  reference: EvalSummary;
  checks: { name: string; pass: boolean; detail: string }[];
}

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(`${dataDir}/${name}`, 'utf8')) as T;
}

function pathSlug(id: string): string {
  return id.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'node';
}

/** The corpus as documents a world would hold: `/spex/<slug>.md`, tags none, importance 0.5. */
export function spexCorpus(): { docs: SearchDoc[]; nodeOfPath: Map<string, string> } {
  const nodes = readJson<SpexNode[]>('nodes.json');
  const nodeOfPath = new Map<string, string>();
  const docs = nodes.map((node) => {
    let slug = pathSlug(node.id);
    while (nodeOfPath.has(`/spex/${slug}.md`)) slug += '-x';
    const id = `/spex/${slug}.md`;
    nodeOfPath.set(id, node.id);
    return { id, title: node.title, name: `${slug}.md`, description: node.desc, tags: [], importance: 0.5, body: node.body };
  });
  return { docs, nodeOfPath };
}

export function localSearch(mode: MatchMode): { search: SearchFn; index: SearchIndex } {
  const index = new SearchIndex();
  for (const doc of spexCorpus().docs) index.upsert(doc);
  return { index, search: (query, limit) => index.search(query, { limit, mode }) };
}

function labelMatches(nodeId: string, labels: string[]): boolean {
  return labels.some((label) => nodeId === label || nodeId.endsWith(`_${label}`));
}

async function topDocuments(search: SearchFn, query: string, nodeOfPath: Map<string, string>): Promise<string[]> {
  const seen: string[] = [];
  for (const row of await search(query, rowsPerQuestion)) {
    const node = nodeOfPath.get(row.id.split('#')[0] ?? '') ?? row.id;
    if (!seen.includes(node)) seen.push(node);
    if (seen.length === docsPerQuestion) break;
  }
  return seen;
}

function summarise(ranks: number[]): EvalSummary {
  const share = (k: number): number => round3(ranks.filter((r) => r >= 1 && r <= k).length / ranks.length);
  const mrr = round3(ranks.reduce((sum, r) => sum + (r > 0 ? 1 / r : 0), 0) / ranks.length);
  return { recall1: share(1), recall3: share(3), recall5: share(5), mrr };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export async function runSearchEval(searchFn?: SearchFn): Promise<EvalResult> {
  const search = searchFn ?? localSearch('any').search;
  const { nodeOfPath } = spexCorpus();
  const questions = readJson<{ cases: Question[] }>('questions.json').cases;
  const reference = readJson<{ rows: { case: string; rank: number | null }[] }>('reference-results.json');
  const cases: CaseResult[] = [];
  for (const q of questions) {
    const topDocs = await topDocuments(search, q.query, nodeOfPath);
    const rank = topDocs.findIndex((id) => labelMatches(id, q.expect)) + 1;
    const referenceRank = reference.rows.find((r) => r.case === q.case)?.rank ?? 0;
    cases.push({ case: q.case, query: q.query, rank, referenceRank, topDocs });
  }
  const checks = await nonRankChecks(search, nodeOfPath);
  return { cases, ours: summarise(cases.map((c) => c.rank)), reference: summarise(cases.map((c) => c.referenceRank)), checks };
}

/** Lexical-search spec §5 non-rank checks; zero-result help is checked on src/search only. */
async function nonRankChecks(search: SearchFn, nodeOfPath: Map<string, string>): Promise<EvalResult['checks']> {
  const cjk = await topDocuments(search, '节点', nodeOfPath);
  const none = await topDocuments(search, '会话', nodeOfPath);
  const typo = await topDocuments(search, 'kyeboard', nodeOfPath);
  return [
    { name: 'cjk-positive 节点 finds spexcode', pass: cjk.includes('spexcode'), detail: cjk.slice(0, 3).join(', ') },
    { name: 'cjk-zero-result 会话 finds nothing', pass: none.length === 0, detail: none.join(', ') },
    { name: 'typo-zero-result kyeboard finds nothing', pass: typo.length === 0, detail: typo.join(', ') },
  ];
}

function print(label: string, result: EvalResult): void {
  console.log(`\n== ${label}`);
  console.log('case                  ours  ref');
  for (const c of result.cases) {
    const show = (r: number): string => (r > 0 ? String(r) : '-').padStart(4);
    console.log(`${c.case.padEnd(20)} ${show(c.rank)} ${show(c.referenceRank)}   ${c.topDocs.slice(0, 3).join(', ')}`);
  }
  const row = (name: string, s: EvalSummary): string =>
    `${name.padEnd(10)} r@1 ${s.recall1.toFixed(3)}  r@3 ${s.recall3.toFixed(3)}  r@5 ${s.recall5.toFixed(3)}  MRR ${s.mrr.toFixed(3)}`;
  console.log(row('ours', result.ours));
  console.log(row('reference', result.reference));
  for (const c of result.checks) console.log(`${c.pass ? 'PASS' : 'FAIL'} ${c.name} (${c.detail || 'none'})`);
}

async function main(): Promise<void> {
  print('src/search, mode any (free-text questions)', await runSearchEval(localSearch('any').search));
  print('src/search, mode all (Mark SPEC §6.4 rule)', await runSearchEval(localSearch('all').search));
  const { index } = localSearch('any');
  for (const q of ['会话', 'kyeboard']) console.log(`zero-result help for ${q}:`, JSON.stringify(index.zeroResultHelp(q)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
