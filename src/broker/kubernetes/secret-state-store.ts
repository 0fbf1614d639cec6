/**
 * Broker state that several replicas share (refresh tokens, registered
 * clients, signing keys), kept as documents in broker-namespace Secrets. One
 * document is one key of one Secret; updates are read-modify-write with
 * optimistic concurrency, so two replicas editing the same document never lose
 * each other's change (the loser of a race recomputes from the winner's bytes).
 *
 * A Secret holds at most 1 MiB of data (the API server refuses more with 422
 * Invalid): a document that can grow without bound must cap itself (about
 * 5000 refresh-token records fit one 1 MiB Secret), and so must a family of
 * documents that shares one Secret (the registered clients' records,
 * src/broker/auth/clients/client-record-budget.ts).
 *
 * Each API call waits at most `apiCallTimeoutMs` (bounded-call.ts), and an
 * update also ends when its caller's signal aborts; either is a failure
 * `unavailable` (no answer).
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import {
  isRegisteredClientDocument,
  signInDocuments,
  StateStoreError,
  type DocumentMutation,
  type StateDocumentStore,
  type StateStoreFailure,
} from '../state/document-store.ts';
import { KubernetesBackendError } from './errors.ts';
import { mutateSecret, readSecret, removeSecretKeys } from './mutate-secret.ts';
import { secretValue } from './secret-data.ts';
import { brokerSecretLabels } from './secret-write-token-store.ts';

/** Which Secret and key hold a document. */
export type DocumentLocation = { secret: string; key: string };

/**
 * Default placement: the refresh tokens in `server.refreshTokensSecret` under
 * the Go broker's key (so a Go broker's Secret carries over), each registered
 * client's record as its own key of `demarkus-broker-state-registered-clients`
 * (beside the older one-document layout, so the broker's Role keeps naming
 * every Secret it may read), any other document in
 * `demarkus-broker-state-<name>` under its own name.
 */
export function defaultDocumentLocation(refreshTokensSecret: string): (document: string) => DocumentLocation {
  return (document) => {
    if (document === signInDocuments.refreshTokens) return { secret: refreshTokensSecret, key: document };
    if (isRegisteredClientDocument(document))
      return { secret: 'demarkus-broker-state-registered-clients', key: document };
    const slug = document
      .replace(/\.[a-z]+$/, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    return { secret: `demarkus-broker-state-${slug}`, key: document };
  };
}

export class SecretStateStore implements StateDocumentStore {
  readonly #core: CoreV1Api;
  readonly #namespace: string;
  readonly #locate: (document: string) => DocumentLocation;

  constructor(options: { core: CoreV1Api; namespace: string; locate: (document: string) => DocumentLocation }) {
    this.#core = options.core;
    this.#namespace = options.namespace;
    this.#locate = options.locate;
  }

  async read(document: string): Promise<Buffer | null> {
    const { secret, key } = this.#locate(document);
    const found = await this.#translate(document, () =>
      readSecret(this.#core, { namespace: this.#namespace, name: secret }),
    );
    return found === null ? null : secretValue(found, key);
  }

  async update(document: string, mutate: DocumentMutation, options?: { signal?: AbortSignal }): Promise<Buffer | null> {
    const { secret, key } = this.#locate(document);
    const outcome = await this.#translate(document, () =>
      mutateSecret(this.#core, { namespace: this.#namespace, name: secret, key }, mutate, {
        createIfMissing: true,
        labels: { ...brokerSecretLabels },
        ...(options?.signal === undefined ? {} : { signal: options.signal }),
      }),
    );
    return outcome.value;
  }

  /** One read of the Secret the prefix is placed in: its keys that start with the prefix. */
  async readAll(prefix: string): Promise<Map<string, Buffer>> {
    const { secret } = this.#locate(prefix);
    const found = await this.#translate(prefix, () =>
      readSecret(this.#core, { namespace: this.#namespace, name: secret }),
    );
    const documents = new Map<string, Buffer>();
    for (const key of Object.keys(found?.data ?? {})
      .filter((name) => name.startsWith(prefix))
      .sort()) {
      const value = secretValue(found!, key);
      if (value !== null) documents.set(key, value);
    }
    return documents;
  }

  /** One write per Secret, however many of its keys go. */
  async remove(documents: readonly string[]): Promise<void> {
    const bySecret = new Map<string, string[]>();
    for (const document of documents) {
      const { secret, key } = this.#locate(document);
      bySecret.set(secret, [...(bySecret.get(secret) ?? []), key]);
    }
    for (const [secret, keys] of bySecret)
      await this.#translate(keys[0]!, () =>
        removeSecretKeys(this.#core, { namespace: this.#namespace, name: secret }, keys),
      );
  }

  /** Kubernetes failures become the port's StateStoreError (the cause keeps the detail). */
  async #translate<T>(document: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof KubernetesBackendError)
        throw new StateStoreError(document, `state document ${JSON.stringify(document)}: ${error.message}`, {
          cause: error,
          failure: storeFailure(error),
        });
      throw error;
    }
  }
}

/** A conflict after every retry, and an API server that did not answer or could not serve (5xx, 429), may pass; the rest (403, 404, 422) will not. */
function storeFailure(error: KubernetesBackendError): StateStoreFailure {
  if (error.code === 'ERR_K8S_CONFLICT') return 'conflict';
  if (error.code !== 'ERR_K8S_API') return 'failed';
  return error.status === undefined || error.status >= 500 || error.status === 429 ? 'unavailable' : 'failed';
}
