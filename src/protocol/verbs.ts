/** Request verbs (Mark SPEC §6). Verbs are case-sensitive on the wire. */
export const Verb = {
  Fetch: 'FETCH',
  List: 'LIST',
  Versions: 'VERSIONS',
  Publish: 'PUBLISH',
  Archive: 'ARCHIVE',
  Append: 'APPEND',
  Lookup: 'LOOKUP',
  Watch: 'WATCH',
} as const;

export type Verb = (typeof Verb)[keyof typeof Verb];

const verbs: ReadonlySet<string> = new Set(Object.values(Verb));

export function isVerb(value: string): value is Verb {
  return verbs.has(value);
}

/**
 * Verbs that change nothing and so are safe to retry or replay. Writes
 * (PUBLISH, APPEND, ARCHIVE) are sent at most once.
 */
export function isReadVerb(verb: Verb): boolean {
  return verb === Verb.Fetch || verb === Verb.List || verb === Verb.Versions || verb === Verb.Lookup;
}

export function isWriteVerb(verb: Verb): boolean {
  return verb === Verb.Publish || verb === Verb.Append || verb === Verb.Archive;
}
