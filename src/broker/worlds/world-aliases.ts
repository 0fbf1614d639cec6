/**
 * Every form of a world's address the broker shows (mark_worlds' name, public
 * URL and internal address columns, federation index rows) names one world.
 * Agents copy what they were shown, so a tool URL whose authority is a known
 * world's public URL or dial address is read as that world's logical name;
 * anything else keeps the strict `mark://{world}/{path}` grammar of
 * world-url.ts and its refusals.
 */
import { defaultPort } from '../../protocol/limits.ts';
import type { WorldInfo } from './gateway.ts';

/** `mark://authority` + the rest (path, query, fragment), or null when `raw` is not a mark:// URL. */
const markUrlShape = /^mark:\/\/([^/?#]*)(.*)$/is;

/**
 * The world called `name`, compared lower-case as a world in any mark:// URL is (world names are
 * lower-case DNS labels, src/broker/config/world-name.ts), so `TEAM-A` is team-a everywhere.
 */
export function worldNamed(name: string, worlds: readonly WorldInfo[]): WorldInfo | undefined {
  const wanted = name.toLowerCase();
  return worlds.find((world) => world.name === wanted);
}

/**
 * The world whose name, public URL authority or dial address is `authority`
 * (compared lower-case; a missing port means the Mark default). Configured
 * worlds answer first: a discovered world's public URL is whatever its
 * Service's annotation says, written by anyone who may edit a Service in a
 * watched namespace, so it can neither take a configured world's address nor
 * make it ambiguous (test/security/discovery-aliases.test.ts). Null when no
 * world, or more than one of the same source, answers to it: an ambiguous
 * address is not guessed.
 */
export function worldForAuthority(authority: string, worlds: readonly WorldInfo[]): string | null {
  const wanted = authorityKey(authority);
  const byName = worldNamed(authority, worlds);
  if (byName !== undefined) return byName.name;
  for (const source of ['config', 'discovery'] as const) {
    const matches = new Set<string>();
    for (const world of worlds)
      if (world.source === source && worldAuthorities(world).includes(wanted)) matches.add(world.name);
    if (matches.size > 0) return matches.size === 1 ? [...matches][0]! : null;
  }
  return null;
}

/**
 * The world a tool's world argument (mark_search `world`, mark_doctor `worlds`) names, in any form
 * mark_worlds shows and URL arguments accept: the bare name, `mark://{world}` or `mark://{world}/`,
 * the public URL or internal address, each with or without `mark://` and the default port, matched
 * as a URL's authority is (`worldForAuthority`). Undefined for anything else: a URL with a path,
 * query or fragment names a document or folder, not a world, and is not cut down to its world.
 */
export function worldInArgument(raw: string, worlds: readonly WorldInfo[]): WorldInfo | undefined {
  const match = markUrlShape.exec(raw);
  const [authority, rest] = match === null ? [raw, ''] : [match[1] ?? '', match[2] ?? ''];
  if (authority === '' || authority.includes('@') || authority.includes('/') || (rest !== '' && rest !== '/'))
    return undefined;
  const name = worldForAuthority(authority, worlds);
  return name === null ? undefined : worldNamed(name, worlds);
}

/** An authority as aliases compare it: lower-case, with the Mark default port when it has none. */
export function authorityKey(authority: string): string {
  return withPort(authority.toLowerCase());
}

/** The authorities (`authorityKey`) a world answers to besides its name: its dial address and public URL's. */
export function worldAuthorities(world: Pick<WorldInfo, 'address' | 'publicUrl'>): string[] {
  const publicAuthority = world.publicUrl === undefined ? null : authorityOf(world.publicUrl);
  return [authorityKey(world.address), ...(publicAuthority === null ? [] : [authorityKey(publicAuthority)])];
}

/**
 * `raw` with its authority replaced by the world's logical name when the
 * authority is another address of a known world; otherwise `raw` unchanged.
 */
export function canonicalWorldUrl(raw: string, worlds: readonly WorldInfo[]): string {
  const match = markUrlShape.exec(raw);
  if (match === null) return raw;
  const [, authority = '', rest = ''] = match;
  if (authority === '' || authority.includes('@')) return raw;
  const world = worldForAuthority(authority, worlds);
  return world === null || world === authority ? raw : `mark://${world}${rest}`;
}

/** `known worlds: a, b, c` for error messages; says so when the broker routes to none. */
export function knownWorldsHint(worlds: readonly WorldInfo[]): string {
  return worlds.length === 0 ? 'this broker has no worlds' : `known worlds: ${worlds.map((w) => w.name).join(', ')}`;
}

/** The authority of a mark:// URL, lower-case; null when `url` is not one or has none. */
export function authorityOf(url: string): string | null {
  const match = markUrlShape.exec(url);
  return match === null || match[1] === '' ? null : match[1]!.toLowerCase();
}

/** `host` → `host:6309`; `host:port` and `[v6]:port` unchanged. */
function withPort(authority: string): string {
  const afterHost = authority.startsWith('[') ? authority.slice(authority.indexOf(']') + 1) : authority;
  return afterHost.includes(':') ? authority : `${authority}:${defaultPort}`;
}
