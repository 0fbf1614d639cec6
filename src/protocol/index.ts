/** The Mark Protocol, pure: framing, limits, statuses, paths, URLs and the shared renderers. */
export * from './limits.ts';
export * from './status.ts';
export * from './verbs.ts';
export * from './metadata.ts';
export * from './token.ts';
export * from './paths.ts';
export * from './mark-url.ts';
export * from './escape.ts';
export * from './time.ts';
export * from './frontmatter.ts';
export * from './yaml-map.ts';
export * from './request.ts';
export * from './response.ts';
export * from './outline.ts';
export * from './render/list.ts';
export * from './render/versions.ts';
export * from './render/lookup.ts';
