/**
 * Wording shared by tool descriptions. Descriptions are ours (not the Go
 * broker's): short, and each says when to pick the tool over its neighbours.
 */
export const worldUrlHint =
  'Addresses look like mark://{world}/{path}; {world} is a world name from mark_worlds, and the broker routes the call to that world.';

/**
 * Where the org's publishing policy lives: on the hub world, which the broker config key `hub` names
 * (default `root`, src/broker/hub-world.ts), so a description cannot spell its URL.
 */
export const publishingPolicyPlace = "the hub world's /.well-known/demarkus/policy.md, listed as a resource";

export function describe(...sentences: string[]): string {
  return sentences.join(' ');
}
