/**
 * A typed JSON document on top of the byte-level port: decode, change, encode,
 * and report what the change decided. The change may run more than once (see
 * `StateDocumentStore.update`); the outcome of the run that was stored wins.
 */
import { StateStoreError, type StateDocumentStore } from './document-store.ts';

export type JsonDocument<T> = {
  read(): Promise<T>;
  /** `change` returns the new document and an outcome, or `{ outcome }` alone to store nothing; `signal` as `StateDocumentStore.update`. */
  update<R>(change: (current: T) => { next?: T; outcome: R }, signal?: AbortSignal): Promise<R>;
};

export function jsonDocument<T>(
  store: StateDocumentStore,
  name: string,
  empty: () => T,
  isValid: (value: unknown) => value is T,
): JsonDocument<T> {
  const decode = (bytes: Buffer | null): T => {
    if (bytes === null || bytes.length === 0) return empty();
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (cause) {
      throw new StateStoreError(name, `state document ${name} is not valid JSON`, { cause });
    }
    if (!isValid(value)) throw new StateStoreError(name, `state document ${name} does not have the expected shape`);
    return value;
  };
  return {
    read: async () => decode(await store.read(name)),
    update: async <R>(change: (current: T) => { next?: T; outcome: R }, signal?: AbortSignal) => {
      let outcome: { value: R } | undefined;
      await store.update(
        name,
        (bytes) => {
          const result = change(decode(bytes));
          outcome = { value: result.outcome };
          return result.next === undefined ? null : Buffer.from(JSON.stringify(result.next));
        },
        signal === undefined ? undefined : { signal },
      );
      if (outcome === undefined) throw new StateStoreError(name, `state store did not apply the change to ${name}`);
      return outcome.value;
    },
  };
}
