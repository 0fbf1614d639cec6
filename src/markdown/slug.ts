import GithubSlugger, { slug } from 'github-slugger';

/**
 * Heading anchors as GitHub makes them, by `github-slugger` (the slugger
 * GitHub's own renderer follows): lower-case, every character that is not a
 * letter, mark, number, `_`, `-` or space dropped, each space turned into `-`.
 * The input is the heading's rendered text (src/markdown/plain-text.ts), so
 * link targets, tags and emphasis markers never reach it. A heading that keeps
 * nothing (`# 🚀`) has the empty anchor, as on GitHub.
 */
export function githubSlug(renderedText: string): string {
  return slug(renderedText);
}

/**
 * Unique anchors within one document, in heading order: a repeated slug gets
 * `-1`, `-2`, ..., and a generated suffix counts as taken (`a`, `a`, `a-1`
 * give `a`, `a-1`, `a-1-1`).
 */
export class AnchorSlugger {
  readonly #slugger = new GithubSlugger();

  slug(renderedText: string): string {
    return this.#slugger.slug(renderedText);
  }
}
