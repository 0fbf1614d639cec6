/**
 * Kubernetes backend of the write-token store (worlds/write-tokens/store.ts):
 * one broker-namespace Secret per world, `demarkus-broker-write-token-<world>`,
 * key `write-token.json`, holding the Go broker's record JSON (Go broker `world_write_tokens.go`)
 *
 *   {"label":"broker-write-<world>","rawToken":"<64 hex>","entry":{"Hash":"sha256-…","Paths":[…],"Operations":["publish"],"Expires":""}}
 *
 * so a Go broker's Secrets carry over. The version is the Secret's
 * resourceVersion: create-only is a POST (409 AlreadyExists: another replica
 * won), a replacement is a PUT carrying the version (409 Conflict: stale).
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import type { WriteTokenRecord } from '../worlds/write-tokens/record.ts';
import { decodeWriteTokenRecord, encodeWriteTokenRecord } from '../worlds/write-tokens/record-json.ts';
import {
  WriteTokenConflictError,
  WriteTokenStoreError,
  type StoredWriteToken,
  type WriteTokenStore,
} from '../worlds/write-tokens/store.ts';
import { boundedCall, callBound } from './bounded-call.ts';
import { apiFailure, apiStatus } from './errors.ts';
import { readSecret } from './mutate-secret.ts';
import { secretValue, withSecretValue } from './secret-data.ts';

export const writeTokenSecretKey = 'write-token.json';
export const writeTokenSecretName = (world: string) => `demarkus-broker-write-token-${world}`;

/** Labels on every Secret the broker creates, so an operator can list them. */
export const brokerSecretLabels = {
  'app.kubernetes.io/managed-by': 'demarkus-broker',
  'app.kubernetes.io/component': 'broker-state',
} as const;

export class SecretWriteTokenStore implements WriteTokenStore {
  readonly #core: CoreV1Api;
  readonly #namespace: string;

  constructor(options: { core: CoreV1Api; namespace: string }) {
    this.#core = options.core;
    this.#namespace = options.namespace;
  }

  async get(world: string): Promise<StoredWriteToken | null> {
    const secret = await this.#call(world, 'read', () =>
      readSecret(this.#core, { namespace: this.#namespace, name: writeTokenSecretName(world) }),
    );
    const bytes = secret === null ? null : secretValue(secret, writeTokenSecretKey);
    if (secret === null || bytes === null) return null;
    return { record: decodeWriteTokenRecord(world, bytes), version: secret.metadata?.resourceVersion ?? '' };
  }

  async put(world: string, record: WriteTokenRecord, expectedVersion: string | null): Promise<StoredWriteToken> {
    const name = writeTokenSecretName(world);
    const bytes = encodeWriteTokenRecord(record);
    const body: V1Secret =
      expectedVersion === null
        ? {
            apiVersion: 'v1',
            kind: 'Secret',
            type: 'Opaque',
            metadata: {
              name,
              namespace: this.#namespace,
              labels: { ...brokerSecretLabels, 'demarkus.io/world': world },
            },
            data: {},
          }
        : await this.#current(world, expectedVersion);
    const next = withSecretValue(body, writeTokenSecretKey, bytes);
    try {
      const written =
        expectedVersion === null
          ? await boundedCall(callBound(), (call) =>
              this.#core.createNamespacedSecret({ namespace: this.#namespace, body: next }, call),
            )
          : await boundedCall(callBound(), (call) =>
              this.#core.replaceNamespacedSecret({ namespace: this.#namespace, name, body: next }, call),
            );
      return { record, version: written.metadata?.resourceVersion ?? '' };
    } catch (error) {
      if (apiStatus(error) === 409) throw new WriteTokenConflictError(world);
      throw this.#failure(world, 'write', error);
    }
  }

  /** The Secret at `version`, to replace; a newer or missing one is a conflict. */
  async #current(world: string, version: string): Promise<V1Secret> {
    const secret = await this.#call(world, 'read', () =>
      readSecret(this.#core, { namespace: this.#namespace, name: writeTokenSecretName(world) }),
    );
    if (secret === null || secret.metadata?.resourceVersion !== version) throw new WriteTokenConflictError(world);
    return secret;
  }

  async #call<T>(world: string, action: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.#failure(world, action, error);
    }
  }

  #failure(world: string, action: string, error: unknown): WriteTokenStoreError {
    const cause = apiFailure(
      `${this.#namespace}/${writeTokenSecretName(world)}`,
      `${action} secret`,
      (error as { cause?: unknown }).cause ?? error,
    );
    return new WriteTokenStoreError(
      world,
      `cannot ${action} the write-token record of world ${JSON.stringify(world)}: ${cause.message}`,
      { cause },
    );
  }
}
