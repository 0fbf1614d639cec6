import type { WorldInfo } from '../worlds/gateway.ts';
import { canonicalAuthority, canonicalMarkUrl, isMarkUrl } from './link-url.ts';

/**
 * Which graph URLs name a configured world, and how other spellings of a
 * world map to its name. Tool URLs are `mark://{worldName}/{path}`; the
 * federation agent's `/graph.md` rows and links written by hand may instead
 * use a world's internal dial address (`team-a.team-a.svc.cluster.local:6309`)
 * or its public `mark://` URL. Those are rewritten to `mark://{worldName}`
 * (Go broker `translateSeedURLs`); unknown hosts are kept,
 * in identity form.
 */
export class WorldDirectory {
  readonly #names: ReadonlySet<string>;
  readonly #aliases: ReadonlyMap<string, string>;

  constructor(worlds: readonly WorldInfo[]) {
    this.#names = new Set(worlds.map((w) => w.name));
    const aliases = new Map<string, string>();
    for (const world of worlds) {
      const address = canonicalAuthority(world.address);
      if (address !== null && !this.#names.has(address)) aliases.set(address, world.name);
      const publicAuthority = world.publicUrl === undefined ? null : publicUrlAuthority(world.publicUrl);
      if (publicAuthority !== null && !this.#names.has(publicAuthority) && !aliases.has(publicAuthority))
        aliases.set(publicAuthority, world.name);
    }
    this.#aliases = aliases;
  }

  isWorld(name: string): boolean {
    return this.#names.has(name);
  }

  /** A graph URL with known world spellings replaced by `mark://{worldName}`; other URLs unchanged. */
  translate(url: string): string {
    if (!isMarkUrl(url)) return url;
    const canonical = canonicalMarkUrl(url);
    return canonical === null ? url : this.translateCanonical(canonical);
  }

  /** translate() for a URL already in identity form (skips canonicalization). */
  translateCanonical(canonical: string): string {
    if (this.#aliases.size === 0 || !canonical.startsWith('mark://')) return canonical;
    const { authority, rest } = splitCanonical(canonical);
    const name = this.#aliases.get(authority);
    return name === undefined ? canonical : `mark://${name}${rest}`;
  }

  /**
   * The world and decoded request path a graph URL names, or null when the URL
   * is not `mark://{configured world}/...` (such links are recorded, not followed).
   */
  locate(url: string): { world: string; path: string } | null {
    const canonical = isMarkUrl(url) ? canonicalMarkUrl(this.translate(url)) : null;
    if (canonical === null) return null;
    const { authority, rest } = splitCanonical(canonical);
    if (!this.#names.has(authority)) return null;
    try {
      return { world: authority, path: decodeURIComponent(rest) };
    } catch {
      return null;
    }
  }
}

function splitCanonical(canonical: string): { authority: string; rest: string } {
  const slash = canonical.indexOf('/', 'mark://'.length);
  return { authority: canonical.slice('mark://'.length, slash), rest: canonical.slice(slash) };
}

function publicUrlAuthority(publicUrl: string): string | null {
  const m = /^mark:\/\/([^/?#]+)/i.exec(publicUrl.trim());
  return m === null ? null : canonicalAuthority(m[1]!);
}
