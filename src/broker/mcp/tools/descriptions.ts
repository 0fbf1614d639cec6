/**
 * Wording shared by tool descriptions. Descriptions are ours (not the Go
 * broker's): short, and each says when to pick the tool over its neighbours.
 */
export const worldUrlHint =
  'Addresses look like mark://{world}/{path}; {world} is a world name from mark_worlds, and the broker routes the call to that world.';

export function describe(...sentences: string[]): string {
  return sentences.join(' ');
}
