/**
 * Which graph documents a caller may read now, for answers from the shared
 * link graph (mark_backlinks, mark_explore, mark_graph_export,
 * mark_graph_publish). The graph keeps the titles and links it read while a
 * document was public; a world that later protects the document (a read token
 * in its tokens.toml) reports no change, so without this the graph went on
 * handing them to every caller (test/security/graph-rights.test.ts).
 *
 * The check is the one the gateway makes before a write
 * (src/broker/worlds/read-right-probe.ts): a tokenless FETCH of a version no
 * document reaches, which the world answers after its read-auth. Through the
 * broker every caller reads with a world's public rights (reads carry no
 * token), so one verdict per document holds for every caller and is cached
 * for `readCheckTtlMs`; a document protected meanwhile leaves answers within
 * that time. Only `readable` shows a document: a refusal, an answer that
 * says neither (`rate-limited`, ...), a world that failed, a URL outside
 * every configured world, or a check over the call's bound withholds it for
 * this answer (fail closed). Checks are the caller's reads, charged to its
 * share of the world's streams (src/broker/worlds/caller-gateway.ts), and
 * paid from the world's read-check budget, which every caller of this broker
 * shares (`readCheckBudgetPerWorld`): past it the answer withholds what it
 * did not check instead of waiting.
 */
import { LRUCache } from 'lru-cache';
import { boundedMap } from '../../concurrency/pool.ts';
import { TokenBuckets } from '../../concurrency/token-buckets.ts';
import { readRightOf, readRightProbe } from '../worlds/read-right-probe.ts';
import { CheckBudget, listedReadable } from './folder-read-check.ts';
import type { WorldGateway } from '../worlds/gateway.ts';
import { WorldDirectory } from './world-urls.ts';

/** How long a verdict stands: short, since protecting a tree is not a change any world reports. */
const readCheckTtlMs = 30_000;
/**
 * Checks one answer may send, a folder's LIST pages included (cached verdicts are free). An
 * answer counts what it shows (mark_backlinks' `count`, a whole export's rows), so every document
 * in it is checked, not only a page's; 5,000 covers the row count of a 1 MiB `/graph.md` (mark_graph_publish) and the
 * backlinks of all but the most linked documents.
 */
export const readChecksPerAnswer = 5000;
/**
 * Unchecked documents of one folder from which a LIST of the folder replaces their checks: below
 * that a LIST page saves little, and the documents it does not name still need their own check.
 */
export const listFromDocuments = 3;
/**
 * Read checks (probes and LIST pages) this broker process sends one world, for all its callers
 * together: 10 a second with a burst of 50. A world limits each source address to 50 requests a
 * second with a burst of 100 (src/transport/server.ts `defaultListenerLimits`, the world chart's
 * `server.rateLimit`), and every caller of the broker reaches it from the broker's address; graph
 * answers may thus take at most a fifth of the world's rate and half its burst, leaving the rest
 * to fetches, writes' own read checks and crawls (docs/decisions.md, 2026-12-07).
 */
export const readCheckBudgetPerWorld = { perMinute: 600, burst: 50 } as const;
/** Checks in flight at once for one answer (a caller holds at most 4 streams of a world anyway). */
const readCheckWorkers = 4;
/** Verdicts held: a quarter of the graph's 50,000 documents (graph-bounds.ts), an entry is a URL and a flag. */
const maxVerdicts = 12_500;

/** The documents an answer may show, and how many it withholds only because they were not checked (the bound). */
export type ReadCheckOutcome = { readable: ReadonlySet<string>; unchecked: number };

export type GraphReadCheckOptions = {
  /** Hears the checks of one answer its world's budget kept back (documents withheld for it), per world. */
  refused?: (world: string, checks: number) => void;
  /** Each world's budget; default `readCheckBudgetPerWorld` (tests about other things lift it). */
  worldBudget?: { perMinute: number; burst: number };
  /** Monotonic milliseconds for the world budgets; injectable for tests. */
  now?: () => number;
};

export class GraphReadCheck {
  readonly #verdicts: LRUCache<string, boolean>;
  readonly #worldBudgets: TokenBuckets;
  readonly #refused: (world: string, checks: number) => void;

  constructor(options: GraphReadCheckOptions = {}) {
    this.#verdicts = new LRUCache({ max: maxVerdicts, ttl: readCheckTtlMs });
    this.#worldBudgets = new TokenBuckets({
      ...(options.worldBudget ?? readCheckBudgetPerWorld),
      ...(options.now ? { now: options.now } : {}),
    });
    this.#refused = options.refused ?? (() => {});
  }

  /**
   * Of `urls` (graph identities), those the caller reading through `reader`
   * may read now. Folders holding `listFromDocuments` or more of the uncached
   * ones are listed first; at most `readChecksPerAnswer` requests are sent in
   * all, each also paid from its world's budget, and documents left unchecked
   * are withheld and counted in `unchecked`.
   */
  async readable(
    urls: Iterable<string>,
    reader: WorldGateway,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<ReadCheckOutcome> {
    const worlds = new WorldDirectory(reader.list());
    const readable = new Set<string>();
    const toCheck: Located[] = [];
    for (const url of new Set(urls)) {
      const verdict = this.#verdicts.get(url);
      if (verdict === true) readable.add(url);
      if (verdict !== undefined) continue;
      const at = worlds.locate(url);
      if (at !== null) toCheck.push({ url, ...at });
    }
    const budget = new CheckBudget(readChecksPerAnswer, (world) => this.#worldBudgets.take(world).ok);
    const listed = await this.#listFolders(toCheck, reader, budget, options.signal);
    const remaining = toCheck.filter(({ url }) => !listed.has(url));
    for (const url of listed) {
      this.#verdicts.set(url, true);
      readable.add(url);
    }
    const checked = remaining.slice(0, budget.left);
    const refused = new Map<string, number>();
    const answers = await boundedMap(checked, readCheckWorkers, async ({ world, path }) => {
      // Paid when it is sent, not up front: the world's budget refills while the answer runs.
      const spend = budget.take(world);
      if (spend === 'world-budget') refused.set(world, (refused.get(world) ?? 0) + 1);
      if (spend !== 'sent') return null;
      return reader.read(
        world,
        readRightProbe({ verb: 'FETCH', path, ...(options.signal ? { signal: options.signal } : {}) }),
      );
    });
    let sent = 0;
    answers.forEach((answer, i) => {
      if (answer.ok && answer.value === null) return;
      sent++;
      const { url } = checked[i]!;
      // A failed check decides nothing: it is neither cached nor shown.
      const right = answer.ok ? readRightOf(answer.value!) : 'unconfirmed';
      if (right === 'unconfirmed') return;
      this.#verdicts.set(url, right === 'readable');
      if (right === 'readable') readable.add(url);
    });
    for (const [world, checks] of refused) this.#refused(world, checks);
    return { readable, unchecked: remaining.length - sent };
  }

  /**
   * The URLs of `toCheck` shown readable by a LIST of their folder
   * (folder-read-check.ts), for folders holding at least `listFromDocuments`
   * of them; a world allows one address 50 requests a second
   * (src/transport/server.ts), and the broker is one address for every caller.
   */
  async #listFolders(
    toCheck: readonly Located[],
    reader: WorldGateway,
    budget: CheckBudget,
    signal: AbortSignal | undefined,
  ): Promise<Set<string>> {
    const folders = new Map<string, { world: string; folder: string; urls: Map<string, string> }>();
    for (const { url, world, path } of toCheck) {
      const folder = path.slice(0, path.lastIndexOf('/') + 1);
      if (folder === '') continue;
      const key = `${world}\n${folder}`;
      const group = folders.get(key) ?? { world, folder, urls: new Map<string, string>() };
      folders.set(key, group);
      group.urls.set(path, url);
    }
    const worthListing = [...folders.values()].filter((group) => group.urls.size >= listFromDocuments);
    const lists = await boundedMap(worthListing, readCheckWorkers, ({ world, folder, urls }) =>
      listedReadable(reader, world, folder, new Set(urls.keys()), budget, signal),
    );
    const listed = new Set<string>();
    lists.forEach((list, i) => {
      // A LIST that failed part-way decides nothing: its documents go to the per-document check.
      if (!list.ok) return;
      for (const path of list.value) listed.add(worthListing[i]!.urls.get(path)!);
    });
    return listed;
  }
}

type Located = { url: string; world: string; path: string };
