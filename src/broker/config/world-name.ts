/**
 * A world's logical name: the only authority accepted in tool URLs
 * (`mark://{name}/{path}`), part of the Kubernetes Service DNS name
 * `<name>.<namespace>.svc.cluster.local` and of the write-token label
 * `broker-write-<name>`. So it is a DNS label (RFC 1123): 1-63 characters of
 * `[a-z0-9-]`, not starting or ending with `-`.
 */
const worldNamePattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isValidWorldName(name: string): boolean {
  return worldNamePattern.test(name);
}

export const worldNameRule = 'must be 1-63 characters of a-z, 0-9 and "-", not starting or ending with "-"';
