/**
 * Heading anchors (Mark SPEC §6.4, GitHub rule): lowercase; keep letters, numbers,
 * `_` and `-`; each space becomes `-`; drop everything else. A repeated slug gets
 * `-1`, `-2`, …, and a generated suffix counts as taken, so `a`, `a`, `a-1` give
 * `a`, `a-1`, `a-1-1`.
 *
 * The slug must equal the one src/protocol's outline produces for mark_fetch; this
 * module may not import it (src/search imports nothing of ours), so the rule is
 * restated here and both sides are tested against the same examples.
 */

/**
 * The slug of a heading's source text. Inline markup goes first, as GitHub slugs
 * the rendered text: links and images keep their text, tags vanish without a
 * trace, and `*`, backticks and `~` are dropped (`_` is a word character and
 * stays). Whitespace is not collapsed: `a  b` gives `a--b`, as on GitHub.
 */
export function githubSlug(headingSource: string): string {
  return headingSource
    .trim()
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[*`~]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Hands out unique anchors within one document, in heading order. */
export class AnchorAllocator {
  // Decision: '' is the bare section's anchor (text before the first heading), so
  // a heading whose slug is empty gets `-1` rather than colliding with it.
  readonly #taken = new Set<string>(['']);

  allocate(headingSource: string): string {
    const base = githubSlug(headingSource);
    let anchor = base;
    for (let n = 1; this.#taken.has(anchor); n++) anchor = `${base}-${n}`;
    this.#taken.add(anchor);
    return anchor;
  }
}
