/** Public surface of the Mark transport: listener, pooled client, certificates, errors. */
export { MarkTransportClient } from './client.ts';
export type { MarkTransportClientOptions, MarkRequestOptions } from './client.ts';
export type { MarkAuthority } from './authority.ts';
export { startMarkListener, defaultListenerLimits } from './server.ts';
export type { MarkListener, MarkListenerOptions, MarkListenerLimits } from './server.ts';
export type { IncomingMarkRequest, MarkRequestHandler, StreamedAnswer, TransportLogger } from './serve-stream.ts';
export type { MarkPeer } from './peer.ts';
export { addressKey } from './address-key.ts';
export { errorResponseBytes, rateLimitedResponse, internalErrorResponse } from './fallback-responses.ts';
export { generateDevCertificate, loadTlsFiles, checkKeyPair } from './tls.ts';
export type { TlsKeyPair, TlsFiles, DevCertificateOptions } from './tls.ts';
export * from './errors.ts';
