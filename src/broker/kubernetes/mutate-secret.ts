/**
 * Read-modify-write of one key of one Secret with optimistic concurrency
 * (Go broker `authz.go` `mutateSecret`): GET, compute, then PUT carrying the
 * resourceVersion that was read, so a concurrent writer makes the API server
 * answer 409 and we start again from a fresh read. A result identical to the
 * stored bytes is not written: every update of a Secret mounted into a pod
 * makes the kubelet re-project the volume, and the world reloads tokens.toml.
 *
 * Every call is bounded (bounded-call.ts): it ends after `apiCallTimeoutMs`
 * without an answer, or as soon as the caller's `signal` aborts (the
 * sweeper's leadership), so a hung API server holds no caller.
 */
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { boundedCall, callBound } from './bounded-call.ts';
import { apiFailure, apiStatus, KubernetesBackendError } from './errors.ts';
import { secretValue, withSecretValue } from './secret-data.ts';

/** `mutateSecret`: the Go broker gives up after five attempts. */
export const maxSecretWriteAttempts = 5;

export type SecretRef = { namespace: string; name: string; key: string };

/**
 * Computes the next bytes from the current ones (`null`: the key or the whole
 * Secret is absent). Return `null` to write nothing. It may run several times
 * (once per attempt), so it must not have side effects.
 */
export type SecretMutation = (current: Buffer | null) => Uint8Array | null;

export type MutateOptions = {
  /** Create the Secret on 404 (broker-owned Secrets); otherwise a missing Secret is ERR_K8S_NOT_FOUND. */
  createIfMissing: boolean;
  /** Labels put on a Secret this call creates. */
  labels?: Record<string, string>;
  /** Ends every call still waiting (and writes nothing more) when it aborts. */
  signal?: AbortSignal;
};

export type MutateOutcome = {
  result: 'created' | 'updated' | 'unchanged';
  /** What the key holds once the call returns (`null`: still absent). */
  value: Buffer | null;
  /** API round trips of GET + write, 1 when nobody raced us. */
  attempts: number;
};

export async function mutateSecret(
  core: CoreV1Api,
  ref: SecretRef,
  mutate: SecretMutation,
  options: MutateOptions,
): Promise<MutateOutcome> {
  const object = `${ref.namespace}/${ref.name}`;
  for (let attempt = 1; attempt <= maxSecretWriteAttempts; attempt++) {
    const secret = await readSecret(core, ref, options.signal);
    const current = secret === null ? null : secretValue(secret, ref.key);
    const next = mutate(current);
    if (next === null || current?.equals(next)) return { result: 'unchanged', value: current, attempts: attempt };
    if (secret === null) {
      // Go mutateSecret: an empty result for an absent Secret is a no-op, not an empty Secret.
      if (next.length === 0) return { result: 'unchanged', value: null, attempts: attempt };
      if (!options.createIfMissing) {
        throw new KubernetesBackendError('ERR_K8S_NOT_FOUND', object, `kubernetes: secret ${object} not found`, {
          status: 404,
        });
      }
      if (await createSecret(core, ref, next, options.labels ?? {}, options.signal))
        return { result: 'created', value: Buffer.from(next), attempts: attempt };
      continue; // AlreadyExists: another replica created it first; read theirs.
    }
    if (await replaceSecret(core, ref, withSecretValue(secret, ref.key, next), options.signal))
      return { result: 'updated', value: Buffer.from(next), attempts: attempt };
  }
  throw conflictAfterRetries(object);
}

/**
 * Deletes `keys` from one Secret, with the same optimistic concurrency as
 * `mutateSecret`; keys (or a Secret) already absent need no write. The Secret
 * itself stays, even if it ends up empty: its name is what the Role grants.
 */
export async function removeSecretKeys(
  core: CoreV1Api,
  ref: { namespace: string; name: string },
  keys: readonly string[],
  signal?: AbortSignal,
): Promise<void> {
  const object = `${ref.namespace}/${ref.name}`;
  for (let attempt = 1; attempt <= maxSecretWriteAttempts; attempt++) {
    const secret = await readSecret(core, ref, signal);
    const present = keys.filter((key) => secret?.data?.[key] !== undefined);
    if (secret === null || present.length === 0) return;
    const data = { ...secret.data };
    for (const key of present) delete data[key];
    if (await replaceSecret(core, ref, { ...secret, data }, signal)) return;
  }
  throw conflictAfterRetries(object);
}

/** Every write attempt lost a race with another writer of the same Secret. */
function conflictAfterRetries(object: string): KubernetesBackendError {
  return new KubernetesBackendError(
    'ERR_K8S_CONFLICT',
    object,
    `kubernetes: conflict on secret ${object} after ${maxSecretWriteAttempts} retries`,
    { status: 409 },
  );
}

/** The Secret, or `null` on 404. */
export async function readSecret(
  core: CoreV1Api,
  ref: { namespace: string; name: string },
  signal?: AbortSignal,
): Promise<V1Secret | null> {
  try {
    return await boundedCall(callBound(signal), (call) =>
      core.readNamespacedSecret({ namespace: ref.namespace, name: ref.name }, call),
    );
  } catch (error) {
    if (apiStatus(error) === 404) return null;
    throw apiFailure(`${ref.namespace}/${ref.name}`, 'read secret', error);
  }
}

/** `false` when the Secret already exists (409 AlreadyExists). */
async function createSecret(
  core: CoreV1Api,
  ref: SecretRef,
  value: Uint8Array,
  labels: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const body: V1Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: ref.name, namespace: ref.namespace, labels },
    data: { [ref.key]: Buffer.from(value).toString('base64') },
  };
  try {
    await boundedCall(callBound(signal), (call) =>
      core.createNamespacedSecret({ namespace: ref.namespace, body }, call),
    );
    return true;
  } catch (error) {
    if (apiStatus(error) === 409) return false;
    throw apiFailure(`${ref.namespace}/${ref.name}`, 'create secret', error);
  }
}

/** `false` on 409 Conflict: the resourceVersion we read is stale. */
async function replaceSecret(
  core: CoreV1Api,
  ref: { namespace: string; name: string },
  body: V1Secret,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  try {
    await boundedCall(callBound(signal), (call) =>
      core.replaceNamespacedSecret({ namespace: ref.namespace, name: ref.name, body }, call),
    );
    return true;
  } catch (error) {
    if (apiStatus(error) === 409) return false;
    throw apiFailure(`${ref.namespace}/${ref.name}`, 'update secret', error);
  }
}
