import { defaultHubWorld } from '../../hub-world.ts';

/**
 * Wording shared by tool descriptions. Descriptions are ours (not the Go
 * broker's): short, and each says when to pick the tool over its neighbours.
 */
// The address convention (mark://{world}/{path}, {world} from mark_worlds) is said once, in the server
// instructions (src/broker/broker.ts) and mark_worlds' description, not in every tool: repeated in twelve
// descriptions it cost ~1.6 KB of every tools/list (docs/benchmarks.md, "tools/list size").

/**
 * The hub world as a description can name it: the broker config key `hub` names it, `root` by default
 * (src/broker/hub-world.ts). Examples use the default's name: no world is called `hub` unless configured so.
 */
export const hubWorld = `the hub world (the broker config's hub, default ${defaultHubWorld})`;

/** An index document on the default hub, for the examples of mark_index and mark_resolve. */
export const exampleIndexUrl = `mark://${defaultHubWorld}/index/team-a.md`;

/**
 * Where the org's publishing policy lives: on the hub world, which the broker config key `hub` names
 * (default `root`, src/broker/hub-world.ts), so a description cannot spell its URL.
 */
export const publishingPolicyPlace =
  "the hub world's /.well-known/demarkus/policy.md, listed as a resource; none applies while the hub has none";

export function describe(...sentences: string[]): string {
  return sentences.join(' ');
}
