/** Where broker state lives: durable documents (file, memory, Kubernetes Secrets) and short-lived entries (memory). */
export {
  isRegisteredClientDocument,
  registeredClientDocument,
  registeredClientPrefix,
  isTransientStateStoreError,
  signInDocuments,
  StateStoreError,
} from './document-store.ts';
export type { DocumentMutation, StateDocumentStore, StateStoreFailure } from './document-store.ts';
export { FileStateStore } from './file-document-store.ts';
export { MemoryStateStore } from './memory-document-store.ts';
export { jsonDocument } from './json-document.ts';
export type { JsonDocument } from './json-document.ts';
export type { EphemeralStore, JsonValue } from './ephemeral-store.ts';
export { updateDeciding, type Decision } from './decided-update.ts';
export { MemoryEphemeralStore } from './memory-ephemeral-store.ts';
export type { MemoryEphemeralStoreOptions } from './memory-ephemeral-store.ts';
export { StateUnavailableError, isStateUnavailable } from './state-unavailable.ts';
export { RedisEphemeralStore } from './redis/redis-ephemeral-store.ts';
export { connectRedis, redisOptions } from './redis/redis-client.ts';
export { redisScript, type RedisScript } from './redis/redis-script.ts';
export { openRedisChannel, type RedisChannel } from './redis/redis-channel.ts';
export { openSharedState, type SharedState } from './shared-state.ts';
