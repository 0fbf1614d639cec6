import type { SessionState } from './definitions.ts';

/**
 * Per-session memory of which document versions mark_fetch already returned
 * in full (Go `client/fetchdedup`), so a re-fetch of an
 * unchanged document costs a two-line notice instead of the body again.
 *
 * Only with a session id: a stateless caller gets no dedup, never someone
 * else's "unchanged". Bounded: a session remembers at most
 * `maxSeenDocsPerSession` documents, forgetting the least recently fetched
 * (the reference stops recording instead; forgetting the oldest keeps dedup
 * working for what an agent reads now). The session store bounds sessions.
 */
export type SeenDoc = { version: string; etag: string };

export const maxSeenDocsPerSession = 1024;
const sessionKey = 'mark_fetch.seen';

export function identified(doc: SeenDoc): boolean {
  return doc.version !== '' || doc.etag !== '';
}

export function sameDoc(a: SeenDoc, b: SeenDoc): boolean {
  return a.version === b.version && a.etag === b.etag;
}

export class FetchMemory {
  readonly #session: SessionState;

  constructor(session: SessionState) {
    this.#session = session;
  }

  get enabled(): boolean {
    return this.#session.id !== undefined;
  }

  lookup(key: string): SeenDoc | undefined {
    if (!this.enabled) return undefined;
    return this.#session.get<Map<string, SeenDoc>>(sessionKey)?.get(key);
  }

  record(key: string, doc: SeenDoc): void {
    if (!this.enabled || !identified(doc)) return;
    const seen = this.#session.get<Map<string, SeenDoc>>(sessionKey) ?? new Map<string, SeenDoc>();
    seen.delete(key);
    seen.set(key, doc);
    while (seen.size > maxSeenDocsPerSession) seen.delete(seen.keys().next().value!);
    this.#session.set(sessionKey, seen);
  }
}

/** `status: unchanged` with the identity and the pointer at force=true (reference UnchangedNotice). */
export function unchangedNotice(doc: SeenDoc): string {
  let out = 'status: unchanged\n';
  if (doc.version !== '') out += `version: ${doc.version}\n`;
  if (doc.etag !== '') out += `etag: ${doc.etag}\n`;
  const since = doc.version !== '' ? `since v${doc.version}` : "since this session's earlier fetch (etag match)";
  return `${out}\nunchanged ${since}; the full body was returned earlier this session; pass force=true to re-read it\n`;
}

/** How the identity moved since the session's earlier full fetch (reference ChangedNote). */
export function changedNote(previous: SeenDoc, current: SeenDoc): string {
  if (previous.version !== current.version) {
    if (previous.version === '')
      return `changed since this session's earlier fetch (was etag-only, now v${current.version})`;
    if (current.version === '')
      return `changed since this session's earlier fetch (was v${previous.version}, now etag-only)`;
    return `changed since this session's earlier fetch (v${previous.version} -> v${current.version})`;
  }
  if (current.version === '') return "content changed since this session's earlier fetch (etag differs)";
  return `content changed since this session's earlier fetch (still v${current.version}, etag differs)`;
}
