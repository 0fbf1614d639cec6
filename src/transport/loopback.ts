/**
 * The loopback host, in the two spellings the code meets: as `URL.hostname`
 * gives it (IPv6 in brackets), for the http URLs that may skip TLS or count
 * as "this computer" (RFC 8252 §7.3 loopback redirects); and bare, as
 * certificate subject names and listen addresses are written.
 */
export const loopbackUrlHosts: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export const loopbackNames: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** Whether a `URL.hostname` names this computer. */
export function isLoopbackUrlHost(hostname: string): boolean {
  return loopbackUrlHosts.includes(hostname);
}
