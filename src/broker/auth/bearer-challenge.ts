import type { BearerError } from './bearer-error.ts';

export type ChallengeOptions = {
  /** RFC 9728 §5.1: where the client finds the protected-resource metadata. */
  resourceMetadataUrl: string;
  /** RFC 6750 §3: scopes that would satisfy the resource (advisory here). */
  scopes?: readonly string[];
  realm?: string;
};

/**
 * The `WWW-Authenticate` value for a refused bearer token (RFC 6750 §3,
 * RFC 9728 §5.1). Every parameter is a quoted-string, sanitised so that no
 * message can break out of the header.
 */
export function bearerChallenge(error: BearerError, options: ChallengeOptions): string {
  const params: Array<[string, string]> = [
    ['realm', options.realm ?? 'demarkus-broker'],
    ['error', error.error],
    ['error_description', error.description],
  ];
  if (options.scopes !== undefined && options.scopes.length > 0) params.push(['scope', options.scopes.join(' ')]);
  params.push(['resource_metadata', options.resourceMetadataUrl]);
  return `Bearer ${params.map(([name, value]) => `${name}="${quotedStringContent(value)}"`).join(', ')}`;
}

/** The JSON body beside the challenge (RFC 6749 §5.2 shape). */
export function bearerErrorBody(error: BearerError): { error: string; error_description: string } {
  return { error: error.error, error_description: error.description };
}

/**
 * RFC 9110 §5.6.4 quoted-string: backslash-escape `"` and `\`, and replace
 * anything outside visible ASCII and space (CR, LF, controls, non-ASCII),
 * which a header value cannot carry safely.
 */
export function quotedStringContent(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, (c) => `\\${c}`);
}
