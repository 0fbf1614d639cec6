/**
 * The fake API server's etcd: objects by resource/namespace/name, one global
 * resourceVersion counter (as etcd's revision), and an event history that
 * watches replay from. `compact()` forgets history, after which a watch from
 * an older resourceVersion gets 410 Gone, as after etcd compaction.
 */
import { randomUUID } from 'node:crypto';
import { alreadyExists, conflict, notFound } from './status.ts';

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string | symbol]: unknown;
  };
  [key: string]: unknown;
};

export type StoredEvent = {
  rv: number;
  resource: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  previous: KubeObject | null;
};

export type EventListener = (event: StoredEvent) => void;

export class ObjectStore {
  #revision = 1000;
  /** Lowest resourceVersion a watch may resume from. */
  #oldestWatchable = 1000;
  readonly #objects = new Map<string, KubeObject>();
  readonly #history: StoredEvent[] = [];
  readonly #listeners = new Set<EventListener>();
  get revision(): number {
    return this.#revision;
  }

  get oldestWatchable(): number {
    return this.#oldestWatchable;
  }

  get(resource: string, namespace: string, name: string): KubeObject | undefined {
    const found = this.#objects.get(key(resource, namespace, name));
    return found === undefined ? undefined : clone(found);
  }

  list(resource: string, namespace: string | null): KubeObject[] {
    return [...this.#objects.values()]
      .filter(
        (object) =>
          object.metadata[resourceKey] === resource && (namespace === null || object.metadata.namespace === namespace),
      )
      .map(clone)
      .sort((a, b) =>
        `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`),
      );
  }

  /**
   * The API server sets `creationTimestamp`, not the client: now, or
   * `createdAt` for a test that ages an object (in whole seconds, as the API
   * server writes it).
   */
  create(resource: string, object: KubeObject, createdAt: Date = new Date()): KubeObject {
    const id = key(resource, object.metadata.namespace, object.metadata.name);
    if (this.#objects.has(id)) throw alreadyExists(resource, object.metadata.name);
    const stored = this.#stamp(resource, structuredClone(object));
    stored.metadata.uid = randomUUID();
    stored.metadata.creationTimestamp = createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
    this.#commit(resource, id, stored, null, 'ADDED');
    return clone(stored);
  }

  /** PUT semantics: a resourceVersion in the body must be the current one (optimistic concurrency). */
  update(resource: string, object: KubeObject): KubeObject {
    const id = key(resource, object.metadata.namespace, object.metadata.name);
    const current = this.#objects.get(id);
    if (current === undefined) throw notFound(resource, object.metadata.name);
    const sent = object.metadata.resourceVersion;
    if (sent !== undefined && sent !== '' && sent !== current.metadata.resourceVersion)
      throw conflict(resource, object.metadata.name);
    const stored = this.#stamp(resource, structuredClone(object));
    stored.metadata.uid = current.metadata.uid;
    stored.metadata.creationTimestamp = current.metadata.creationTimestamp;
    this.#commit(resource, id, stored, current, 'MODIFIED');
    return clone(stored);
  }

  delete(resource: string, namespace: string, name: string): KubeObject {
    const id = key(resource, namespace, name);
    const current = this.#objects.get(id);
    if (current === undefined) throw notFound(resource, name);
    this.#objects.delete(id);
    const tombstone = this.#stamp(resource, structuredClone(current));
    this.#record({ rv: this.#revision, resource, type: 'DELETED', object: tombstone, previous: current });
    return clone(tombstone);
  }

  /** Events after `rv` for one resource, for a watch resuming there. */
  eventsAfter(resource: string, rv: number): StoredEvent[] {
    return this.#history.filter((event) => event.resource === resource && event.rv > rv);
  }

  /** Forget all history: watches from any earlier resourceVersion now get 410 Gone. */
  compact(): void {
    this.#history.length = 0;
    this.#oldestWatchable = this.#revision;
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #stamp(resource: string, object: KubeObject): KubeObject {
    this.#revision += 1;
    object.metadata.resourceVersion = String(this.#revision);
    Object.defineProperty(object.metadata, resourceKey, { value: resource, enumerable: false });
    return object;
  }

  #commit(
    resource: string,
    id: string,
    stored: KubeObject,
    previous: KubeObject | null,
    type: 'ADDED' | 'MODIFIED',
  ): void {
    this.#objects.set(id, stored);
    this.#record({ rv: this.#revision, resource, type, object: clone(stored), previous });
  }

  #record(event: StoredEvent): void {
    this.#history.push(event);
    for (const listener of this.#listeners) listener(event);
  }
}

/** Which resource a stored object belongs to; non-enumerable, so it never reaches JSON. */
const resourceKey = Symbol('resource');

function key(resource: string, namespace: string, name: string): string {
  return `${resource}/${namespace}/${name}`;
}

function clone(object: KubeObject): KubeObject {
  return JSON.parse(JSON.stringify(object)) as KubeObject;
}
