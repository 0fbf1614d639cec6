/**
 * The knowledge layer's costs, each beside a baseline from the same run:
 *  - the publishing policy on mark_publish: the same publish with the hub's
 *    policy in force (every rule) and without it, interleaved call by call,
 *    over real QUIC worlds;
 *  - mark_doctor's judgement (duplicates, near duplicates, policy, links,
 *    orphans) over 10,000 and 100,000 generated documents, beside hashing the
 *    same bodies (the least any duplicate finder must do). Reading the corpus
 *    from the worlds is not included: it is bounded per report (5,000
 *    documents, 20 s) and measured by the crawl benchmarks in bench/graph.ts.
 * Run: `node bench/knowledge.ts [publishes]`.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { diagnose, type DoctorDocument } from '../src/broker/knowledge/doctor/index.ts';
import { createKnowledge, parsePolicy } from '../src/broker/knowledge/index.ts';
import { WorldDirectory } from '../src/broker/graph/index.ts';
import type { WorldListing } from '../src/broker/worlds/index.ts';
import { runTool } from '../src/broker/mcp/run-tool.ts';
import { markPublish } from '../src/broker/mcp/tools/publish.ts';
import { prng } from '../test/support/prng.ts';
import { toolContext } from '../test/broker/mcp/helpers/context.ts';
import { startTestStack } from '../test/broker/mcp/helpers/fixture-gateway.ts';
import { percentile, ratio } from './lib/measure.ts';

const policyMarkdown = `# Policy

Every rule, so the check does all its work.

| rule | setting | severity |
|------|---------|----------|
| required-tags | category | warn |
| importance | 0.1 to 1 | warn |
| required-fields | owner | warn |
| h1-first | | warn |
| summary-sentence | | warn |
| unique-headings | | warn |
| banned-characters | U+2014 U+2013 | warn |
| no-frontmatter | | warn |
| no-secrets | | warn |
`;

const words = 'release deploy token world graph search index policy review access team night build link'.split(' ');

function documentBody(random: () => number, sections: number): string {
  let body = `# Document ${Math.floor(random() * 1e9)}\n\nWhat this document is about, in one sentence.\n`;
  for (let s = 0; s < sections; s++) {
    body += `\n## Section ${s}\n\n`;
    for (let w = 0; w < 60; w++) body += `${words[Math.floor(random() * words.length)]} `;
    body += '\n';
  }
  return body;
}

export async function runPolicyGateBench(publishes = 300): Promise<string[]> {
  const stack = await startTestStack(['root', 'team-a']);
  try {
    await stack.seed('root', '/.well-known/demarkus/policy.md', policyMarkdown);
    const knowledge = createKnowledge({ gateway: stack.gateway });
    const checked = { ...toolContext(stack.gateway), knowledge };
    const unchecked = toolContext(stack.gateway);
    const random = prng(7);
    const body = documentBody(random, 8);
    const metadata = { tags: 'category:bench', importance: '0.5', owner: 'bench@example.com' };
    const publish = async (ctx: typeof checked | typeof unchecked, i: number, kind: string) => {
      const started = performance.now();
      const result = await runTool(
        markPublish,
        { url: `mark://team-a/bench/${kind}-${i}.md`, body, expected_version: 0, metadata },
        ctx,
      );
      if (result.isError) throw new Error(result.text);
      return performance.now() - started;
    };
    for (let i = 0; i < 20; i++) {
      await publish(checked, -1 - i, 'warm-checked');
      await publish(unchecked, -1 - i, 'warm-unchecked');
    }
    const withPolicy: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < publishes; i++) {
      // Alternate which goes first, so drift in the machine's load hits both alike.
      if (i % 2 === 0) {
        withPolicy.push(await publish(checked, i, 'checked'));
        without.push(await publish(unchecked, i, 'unchecked'));
      } else {
        without.push(await publish(unchecked, i, 'unchecked'));
        withPolicy.push(await publish(checked, i, 'checked'));
      }
    }
    withPolicy.sort((a, b) => a - b);
    without.sort((a, b) => a - b);
    const p50 = (xs: number[]) => percentile(xs, 0.5);
    const bytes = Buffer.byteLength(body);
    return [
      `mark_publish of a ${bytes}-byte document, ${publishes} each, interleaved, over QUIC:`,
      `  without a policy (baseline)   p50 ${p50(without).toFixed(3)} ms   p99 ${percentile(without, 0.99).toFixed(3)} ms`,
      `  with every policy rule        p50 ${p50(withPolicy).toFixed(3)} ms   p99 ${percentile(withPolicy, 0.99).toFixed(3)} ms`,
      `  added p50 ${(p50(withPolicy) - p50(without)).toFixed(3)} ms (ratio ${ratio(p50(withPolicy), p50(without))})`,
    ];
  } finally {
    await stack.close();
  }
}

/** A corpus with 1% exact duplicates, 1% near duplicates, links between neighbours and some untagged documents. */
function generatedCorpus(size: number): DoctorDocument[] {
  const random = prng(size);
  const documents: DoctorDocument[] = [];
  for (let i = 0; i < size; i++) {
    const world = `w${i % 10}`;
    let body = `${documentBody(random, 3)}\n[next](mark://w${(i + 1) % 10}/doc-${i + 1}.md)\n`;
    if (i % 100 === 1) body = documents[i - 1]!.body;
    if (i % 100 === 2) body = documents[i - 2]!.body.replace(/ \w+ \n/, ' changed words here \n');
    const hash = `sha256-${createHash('sha256').update(body).digest('hex')}`;
    documents.push({ world, path: `/doc-${i}.md`, body, metadata: i % 7 === 0 ? {} : { tags: 'category:x' }, hash });
  }
  return documents;
}

/** What reading each world in full would have listed: exactly its documents, every directory fully listed. */
function listingsOf(documents: readonly DoctorDocument[]): Map<string, WorldListing> {
  const listings = new Map<string, WorldListing & { documents: string[]; entries: Set<string> }>();
  for (const doc of documents) {
    let listing = listings.get(doc.world);
    if (listing === undefined) {
      listing = {
        documents: [],
        complete: true,
        problems: [],
        boundsReached: [],
        fullyListed: new Set(['/']),
        entries: new Set(),
      };
      listings.set(doc.world, listing);
    }
    listing.documents.push(doc.path);
    listing.entries.add(doc.path);
  }
  return listings;
}

export function runDoctorBench(sizes = [10_000, 100_000]): string[] {
  const lines: string[] = [];
  const policy = parsePolicy(policyMarkdown);
  const directory = new WorldDirectory(
    Array.from({ length: 10 }, (_, i) => ({ name: `w${i}`, address: `w${i}:6309`, source: 'config' as const })),
  );
  for (const size of sizes) {
    const documents = generatedCorpus(size);
    const completeWorlds = listingsOf(documents);
    const hashStarted = performance.now();
    for (const doc of documents) createHash('sha256').update(doc.body).digest('hex');
    const hashMs = performance.now() - hashStarted;
    const started = performance.now();
    const { findings } = diagnose({
      documents,
      policy,
      hub: 'w0',
      directory,
      completeWorlds,
      judgeOrphans: true,
      nearThreshold: 0.8,
    });
    const ms = performance.now() - started;
    const counts = new Map<string, number>();
    for (const f of findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
    lines.push(
      `doctor over ${size} documents: ${ms.toFixed(0)} ms; hashing the bodies (baseline) ${hashMs.toFixed(0)} ms; ratio ${ratio(ms, hashMs)}`,
      `  findings: ${[...counts].map(([kind, n]) => `${kind} ${n}`).join(', ')}`,
    );
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const publishes = Number(process.argv[2] ?? 300);
  console.log((await runPolicyGateBench(publishes)).join('\n'));
  console.log(runDoctorBench().join('\n'));
}
