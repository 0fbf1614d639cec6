/**
 * Size limits of the Mark Protocol, as enforced by the Go reference server
 * (protocol/protocol.go). Every limit carries its unit in its name.
 */

/** Longest request line (`VERB SP PATH`), without its LF. */
export const maxRequestLineBytes = 4096;

/** Longest path: the request line minus the longest verb (`VERSIONS`) and its space. */
export const maxRequestPathBytes = maxRequestLineBytes - 'VERSIONS'.length - 1;

/** Largest request metadata block, fences excluded. */
export const maxRequestFrontmatterBytes = 65_536;

/** Largest document body, on read and on write (also APPEND's combined result). */
export const maxBodyBytes = 1_048_576;

/** Mark's body limit as people and agents read it, in descriptions and refusals alike: "1 MiB (1,048,576 bytes)". */
export const bodyLimitText = `${maxBodyBytes / 2 ** 20} MiB (${maxBodyBytes.toLocaleString('en')} bytes)`;

/** Everything a server reads after the request line: block + body + fence slack. */
export const maxRequestPayloadBytes = maxRequestFrontmatterBytes + maxBodyBytes + 64;

/**
 * Largest response a client reads. Four bodies' worth, so a response that carries
 * two full documents plus metadata still fits.
 */
export const maxResponseBytes = 4 * maxBodyBytes;

/** Publisher metadata bounds: key count, and Σ len(key) + len(value) in bytes. */
export const maxMetaKeys = 50;
export const maxMetaBytes = 1024;

/** Room the store frontmatter may take on top of the body in one stored version. */
export const maxStoreFrontmatterBytes = 2048;

/** Version numbers run 1..2^31-1 and are never renumbered. */
export const maxVersionNumber = 2 ** 31 - 1;

/** LIST pages. */
export const maxListPageEntries = 1000;

/** LOOKUP bounds. */
export const lookupDefaultLimit = 10;
export const lookupMaxLimit = 1000;
export const lookupMaxTerms = 32;
export const lookupMinQueryRunes = 2;
export const lookupSnippetBytes = 240;

/** Transport constants. */
export const defaultPort = 6309;
export const alpn = 'mark';
