/**
 * The replicas' record of which Service serves each discovered world name
 * (world name → Service `namespace/name`), one JSON document in the broker's
 * shared state (on Kubernetes, the broker-namespace Secret
 * `demarkus-broker-state-discovery-served-names`, which no one who may only
 * create Services can write). A replica that starts while two Services claim
 * a name serves the recorded one (discovery-index.ts): Kubernetes keeps no
 * time for a label, so age would pick an older Service relabelled later.
 */
import { z } from 'zod';
import { jsonDocument, type JsonDocument, type StateDocumentStore } from '../state/index.ts';

export const servedNamesDocument = 'discovery_served_names.json';

type ServedNames = Record<string, string>;

const servedNames = z.record(z.string(), z.string());

export class ServedNamesRecord {
  readonly #document: JsonDocument<ServedNames>;

  constructor(store: StateDocumentStore) {
    this.#document = jsonDocument(
      store,
      servedNamesDocument,
      () => ({}),
      (value): value is ServedNames => servedNames.safeParse(value).success,
    );
  }

  /** The record as stored, by world name. */
  async read(): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.#document.read()));
  }

  /** Records that `service` serves `name` now (null: nothing does); stores nothing when the record already says so. */
  async record(name: string, service: string | null): Promise<void> {
    await this.#document.update((current) => {
      if ((current[name] ?? null) === service) return { outcome: undefined };
      const next = { ...current };
      if (service === null) delete next[name];
      else next[name] = service;
      return { next, outcome: undefined };
    });
  }
}
