/**
 * Durable broker state (refresh tokens, registered clients, signing keys) as
 * named documents. The port is four operations, so a file directory, a
 * Kubernetes Secret (src/broker/kubernetes `SecretStateStore` has this very
 * shape) or a database can back it:
 *
 * - `read` returns the document's bytes, or `null` when it was never written;
 * - `update` applies `mutate` to the current bytes (`null`: absent) and stores
 *   the result atomically; `mutate` returns `null` to store nothing and may run
 *   more than once (an optimistic-concurrency retry), so it must be a pure
 *   function of its input. It returns the bytes stored when the call ends.
 *   `signal` (optional; the sweeper passes its leadership) ends a call still
 *   waiting on a remote backend (SecretStateStore) when it aborts; a local
 *   store, which does not hang, may ignore it;
 * - `readAll` returns every document whose name starts with `prefix`, for a
 *   family of documents that bounds itself (registered clients); the family
 *   must live together (on Kubernetes, in one Secret: the prefix is placed as a
 *   document of that name would be);
 * - `remove` deletes documents; one that is already absent is no error.
 */
import { CodedError } from '../../errors/coded-error.ts';
export type DocumentMutation = (current: Buffer | null) => Uint8Array | null;

export interface StateDocumentStore {
  read(document: string): Promise<Buffer | null>;
  update(document: string, mutate: DocumentMutation, options?: { signal?: AbortSignal }): Promise<Buffer | null>;
  readAll(prefix: string): Promise<Map<string, Buffer>>;
  remove(documents: readonly string[]): Promise<void>;
}

/** The documents the sign-in service keeps, named as the file backend names its files. */
export const signInDocuments = {
  refreshTokens: 'refresh_tokens.json',
  registeredClients: 'registered_clients.json',
  signingKeys: 'signing_keys.json',
} as const;

/** One registered client's own document, written when the client is first used (src/broker/auth/clients/registered-clients.ts). */
export const registeredClientDocument = (clientId: string): string => `${registeredClientPrefix}${clientId}.json`;
/** What every registered client's document name starts with, and nothing else's. */
export const registeredClientPrefix = 'registered_client.';
export const isRegisteredClientDocument = (document: string): boolean => document.startsWith(registeredClientPrefix);

/**
 * Why a store failed, for whoever decides whether to retry: `conflict`, other
 * writers kept changing the document through every optimistic retry;
 * `unavailable`, the backend did not answer or answered that it could not
 * serve now (5xx, 429); `failed`, anything a retry will not mend (refused,
 * malformed, a disk error).
 */
export type StateStoreFailure = 'conflict' | 'unavailable' | 'failed';

export class StateStoreError extends CodedError<'ERR_STATE_STORE'> {
  readonly document: string;
  readonly failure: StateStoreFailure;
  constructor(document: string, message: string, options?: { cause?: unknown; failure?: StateStoreFailure }) {
    super('ERR_STATE_STORE', message, options);
    this.document = document;
    this.failure = options?.failure ?? 'failed';
  }
}

/** A store failure that a later attempt may not meet: answered as "try again shortly". */
export function isTransientStateStoreError(error: unknown): error is StateStoreError {
  return error instanceof StateStoreError && error.failure !== 'failed';
}
