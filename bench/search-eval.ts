/**
 * Retrieval-quality benchmark over the 171-node spex corpus, on two question sets:
 * - `public`: the 16 held-out questions of spexcode's `questions.json`, beside the
 *   reference ranker's published reading (reference-results.json);
 * - `second`: bench/questions/spex-second.json, 54 questions written by reading the
 *   corpus and committed before any ranker was run on them, beside the reference
 *   ranker (bench/lib/reference-ranker.ts, checked here to reproduce
 *   reference-results.json exactly before its figures are used).
 * Each is scored as recall@1/3/5 and MRR.
 *
 * Document-level rank: rows are collapsed to documents in order of first appearance;
 * rank = 1-based position of the first document matching any label among the first
 * 10 documents (spexcode's benchmark protocol).
 *
 * Runs, in order:
 * 1. a real world (in-process handler, real store) holding the corpus, asked through
 *    LOOKUP `match: body`: the plain Go `bodymatch.go` contract (every term required), then our
 *    extension `match-terms: any` (the relaxed mode the broker's search uses);
 * 2. the corpus split over three worlds, merged by the broker's cross-world search
 *    (src/broker/search): with summed statistics (two phases), with each world's
 *    own statistics, and interleaved by per-world rank (how a Go world is merged);
 * 3. src/search directly, both modes.
 *
 *   node bench/search-eval.ts            # every run above
 *   node bench/search-eval.ts --quick    # src/search mode any only, both sets, per case
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spexDataDir } from './lib/benchdata.ts';
import { makeScratchDirectory, removeScratchDirectory } from './lib/scratch.ts';
import { performance } from 'node:perf_hooks';
import { referenceOrder, referenceRank } from './lib/reference-ranker.ts';
import { decodeQueryStats, SearchIndex } from '../src/search/index.ts';
import type { MatchMode, SearchDoc } from '../src/search/index.ts';
import { openWorld, type World } from '../src/world/world.ts';
import { encodeRequest } from '../src/protocol/request.ts';
import type { Metadata } from '../src/protocol/metadata.ts';
import type { MarkResponse } from '../src/protocol/response.ts';
import { generateToken, hashToken } from '../src/protocol/token.ts';
import {
  parseLookupRows,
  phaseTwo,
  searchWorlds,
  type LookupFn,
  type PhaseRequest,
} from '../src/broker/search/index.ts';

const secondSetFile = fileURLToPath(new URL('./questions/spex-second.json', import.meta.url));
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
  return JSON.parse(readFileSync(`${spexDataDir()}/${name}`, 'utf8')) as T;
}

function pathSlug(id: string): string {
  return (
    id
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'node'
  );
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
    return {
      id,
      title: node.title,
      name: `${slug}.md`,
      description: node.desc,
      tags: [],
      importance: 0.5,
      body: node.body,
    };
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

export type QuestionSet = 'public' | 'second';

export function questionsOf(set: QuestionSet): Question[] {
  if (set === 'public') return readJson<{ cases: Question[] }>('questions.json').cases;
  return (JSON.parse(readFileSync(secondSetFile, 'utf8')) as { cases: Question[] }).cases;
}

/**
 * The reference ranker's rank per case: the published reading for the public set,
 * bench/lib/reference-ranker.ts for the second (after checking that it reproduces
 * the published top-10 lists, scores included).
 */
function referenceRanks(set: QuestionSet, questions: Question[]): Map<string, number> {
  const published = readJson<{ rows: { case: string; query: string; rank: number | null; top10: unknown }[] }>(
    'reference-results.json',
  ).rows;
  if (set === 'public') return new Map(published.map((r) => [r.case, r.rank ?? 0]));
  const nodes = referenceOrder(readJson<SpexNode[]>('nodes.json'));
  for (const row of published) {
    if (JSON.stringify(referenceRank(nodes, row.query, docsPerQuestion)) !== JSON.stringify(row.top10))
      throw new Error(`bench/lib/reference-ranker.ts does not reproduce the published reading for ${row.case}`);
  }
  return new Map(
    questions.map((q) => {
      const ids = referenceRank(nodes, q.query, docsPerQuestion).map((hit) => hit.id);
      return [q.case, ids.findIndex((id) => labelMatches(id, q.expect)) + 1];
    }),
  );
}

export async function runSearchEval(searchFn?: SearchFn, set: QuestionSet = 'public'): Promise<EvalResult> {
  const search = searchFn ?? localSearch('any').search;
  const { nodeOfPath } = spexCorpus();
  const questions = questionsOf(set);
  const reference = referenceRanks(set, questions);
  const cases: CaseResult[] = [];
  for (const q of questions) {
    const topDocs = await topDocuments(search, q.query, nodeOfPath);
    const rank = topDocs.findIndex((id) => labelMatches(id, q.expect)) + 1;
    cases.push({ case: q.case, query: q.query, rank, referenceRank: reference.get(q.case) ?? 0, topDocs });
  }
  const checks = await nonRankChecks(search, nodeOfPath);
  return {
    cases,
    ours: summarise(cases.map((c) => c.rank)),
    reference: summarise(cases.map((c) => c.referenceRank)),
    checks,
  };
}

/** The non-rank checks of spexcode's benchmark; zero-result help is checked on src/search only. */
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

function summaryRow(name: string, s: EvalSummary): string {
  return `${name.padEnd(16)} r@1 ${s.recall1.toFixed(3)}  r@3 ${s.recall3.toFixed(3)}  r@5 ${s.recall5.toFixed(3)}  MRR ${s.mrr.toFixed(3)}`;
}

function printCases(result: EvalResult): void {
  console.log('case                      ours  ref');
  for (const c of result.cases) {
    const show = (r: number): string => (r > 0 ? String(r) : '-').padStart(4);
    console.log(`${c.case.padEnd(24)} ${show(c.rank)} ${show(c.referenceRank)}   ${c.topDocs.slice(0, 3).join(', ')}`);
  }
}

/** Both question sets through `search`: per-set figures beside the reference's, and the non-rank checks. */
async function evaluateBoth(label: string, search: SearchFn, perCase = false): Promise<void> {
  console.log(`\n== ${label}`);
  for (const set of ['public', 'second'] as const) {
    const result = await runSearchEval(search, set);
    if (perCase) printCases(result);
    const count = result.cases.length;
    console.log(summaryRow(`${set} (${count}) ours`, result.ours));
    console.log(summaryRow(`${set} (${count}) ref`, result.reference));
    if (set === 'public')
      for (const c of result.checks) console.log(`${c.pass ? 'PASS' : 'FAIL'} ${c.name} (${c.detail || 'none'})`);
  }
}

/** Worlds on a temporary store, in-process (no QUIC): the handler, store and indexes are the real ones. */
export class EvalWorlds {
  readonly #worlds = new Map<string, World>();
  readonly #dir: string;
  readonly #token = generateToken();

  private constructor(dir: string) {
    this.#dir = dir;
  }

  /** The corpus published into `count` worlds, document i going to world i mod count. */
  static async open(count: number): Promise<EvalWorlds> {
    const set = new EvalWorlds(await makeScratchDirectory('search-eval-'));
    const tokensFile = join(set.#dir, 'tokens.toml');
    await writeFile(
      tokensFile,
      `[tokens.bench]\nhash = "${hashToken(set.#token)}"\npaths = ["/**"]\noperations = ["publish"]\n`,
    );
    for (let i = 0; i < count; i++)
      set.#worlds.set(`w${i}`, await openWorld({ root: join(set.#dir, `w${i}`), tokensFile }));
    const names = set.names;
    const { docs } = spexCorpus();
    for (const [i, doc] of docs.entries()) await set.publish(names[i % names.length]!, doc);
    return set;
  }

  get names(): string[] {
    return [...this.#worlds.keys()];
  }

  async publish(world: string, doc: SearchDoc): Promise<void> {
    const metadata: Metadata = { auth: this.#token, title: doc.title, 'expected-version': '0' };
    if (doc.description) metadata.description = doc.description;
    const response = await this.call(world, 'PUBLISH', doc.id, metadata, doc.body);
    if (response.status !== 'created') throw new Error(`publish ${doc.id}: ${response.status}`);
  }

  call(world: string, verb: 'PUBLISH' | 'LOOKUP', path: string, metadata: Metadata, body = ''): Promise<MarkResponse> {
    const bytes = encodeRequest({ verb, path, metadata, body: Buffer.from(body) });
    return this.#worlds.get(world)!.respond({ bytes });
  }

  readonly lookup: LookupFn = (world, call) => this.call(world, 'LOOKUP', call.path, call.metadata);

  async close(): Promise<void> {
    for (const world of this.#worlds.values()) await world.close();
    await removeScratchDirectory(this.#dir);
  }
}

/** One world's LOOKUP `match: body`, strict (Go `bodymatch.go`) or with `match-terms: any`. */
function worldLookup(worlds: EvalWorlds, terms: 'all' | 'any'): SearchFn {
  return async (query, limit) => {
    const metadata: Metadata = { query, match: 'body', limit: String(limit) };
    if (terms === 'any') metadata['match-terms'] = 'any';
    const response = await worlds.call(worlds.names[0]!, 'LOOKUP', '/', metadata);
    if (response.status !== 'ok') return [];
    return parseLookupRows(response).map((row) => ({ id: row.path }));
  };
}

/** The broker's cross-world search over every world of the set. */
function crossWorld(worlds: EvalWorlds): SearchFn {
  return async (query, limit) => {
    const outcome = await searchWorlds(worlds.lookup, { worlds: worlds.names, query, scope: '/', limit, terms: 'any' });
    return outcome.rows.map((row) => ({ id: row.path }));
  };
}

/** Each world scored with its own statistics, then merged by score: the incomparable baseline. */
function localScores(worlds: EvalWorlds): SearchFn {
  return async (query, limit) => {
    const request: PhaseRequest = { query, scope: '/', limit, terms: 'any' };
    const rows = [];
    for (const world of worlds.names) {
      const own = await worlds.call(world, 'LOOKUP', '/', {
        query,
        match: 'body',
        'match-terms': 'any',
        'corpus-stats': 'only',
      });
      const stats = decodeQueryStats(own.metadata['corpus-stats'] ?? '', own.metadata['corpus-df'] ?? '');
      const answer = await phaseTwo(worlds.lookup, world, request, stats);
      rows.push(...answer.rows.map((row, i) => ({ id: row.path, score: answer.scores?.[i] ?? 0 })));
    }
    return rows.sort((a, b) => b.score - a.score).slice(0, limit);
  };
}

/** Each world's own order, interleaved by rank: what a merge can do with worlds that give no scores. */
function rankInterleave(worlds: EvalWorlds): SearchFn {
  return async (query, limit) => {
    const lists = [];
    for (const world of worlds.names) lists.push(await worldLookupIn(worlds, world, query, limit));
    const out: { id: string }[] = [];
    for (let r = 0; out.length < limit && lists.some((l) => r < l.length); r++)
      for (const l of lists) if (l[r]) out.push(l[r]!);
    return out.slice(0, limit);
  };
}

async function worldLookupIn(
  worlds: EvalWorlds,
  world: string,
  query: string,
  limit: number,
): Promise<{ id: string }[]> {
  const response = await worlds.call(world, 'LOOKUP', '/', {
    query,
    match: 'body',
    'match-terms': 'any',
    limit: String(limit),
  });
  return response.status === 'ok' ? parseLookupRows(response).map((row) => ({ id: row.path })) : [];
}

/** Wall time per question through `search` (the 16 questions, `rounds` times over): p50 and p99 in ms. */
async function latency(search: SearchFn, rounds = 20): Promise<string> {
  const questions = readJson<{ cases: Question[] }>('questions.json').cases;
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of questions) {
      const start = performance.now();
      await search(q.query, docsPerQuestion);
      times.push(performance.now() - start);
    }
  }
  times.sort((a, b) => a - b);
  const at = (p: number): string => (times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0).toFixed(2);
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms over ${times.length} questions (limit ${docsPerQuestion})`;
}

async function main(): Promise<void> {
  if (process.argv.includes('--quick')) {
    await evaluateBoth('src/search, mode any (free-text questions)', localSearch('any').search, true);
    return;
  }
  const one = await EvalWorlds.open(1);
  try {
    await evaluateBoth('world LOOKUP match: body (Go `bodymatch.go`: every term required)', worldLookup(one, 'all'));
    await evaluateBoth('world LOOKUP match: body + match-terms: any (relaxed ranking)', worldLookup(one, 'any'), true);
    console.log(`\nlatency, world handler, strict:  ${await latency(worldLookup(one, 'all'))}`);
    console.log(`latency, world handler, relaxed: ${await latency(worldLookup(one, 'any'))}`);
  } finally {
    await one.close();
  }
  const three = await EvalWorlds.open(3);
  try {
    await evaluateBoth('3 worlds, broker search: summed statistics, one score scale', crossWorld(three));
    await evaluateBoth('3 worlds, each scored with its own statistics, merged by score', localScores(three));
    await evaluateBoth('3 worlds, interleaved by per-world rank (no scores)', rankInterleave(three));
    console.log(`\nlatency, two-phase search over 3 in-process worlds: ${await latency(crossWorld(three))}`);
  } finally {
    await three.close();
  }
  await evaluateBoth('src/search, mode any (free-text questions)', localSearch('any').search);
  await evaluateBoth('src/search, mode all (Go `bodymatch.go` rule)', localSearch('all').search);
  const { index } = localSearch('any');
  for (const q of ['会话', 'kyeboard'])
    console.log(`zero-result help for ${q}:`, JSON.stringify(index.zeroResultHelp(q)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
