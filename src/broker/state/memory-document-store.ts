/**
 * Durable-state port kept in process memory: for tests, and for a broker whose
 * storage backend is provided by nobody (state then lasts until a restart).
 */
import type { DocumentMutation, StateDocumentStore } from './document-store.ts';

export class MemoryStateStore implements StateDocumentStore {
  readonly #documents = new Map<string, Buffer>();

  async read(document: string): Promise<Buffer | null> {
    const bytes = this.#documents.get(document);
    return bytes === undefined ? null : Buffer.from(bytes);
  }

  async update(document: string, mutate: DocumentMutation): Promise<Buffer | null> {
    const current = await this.read(document);
    const next = mutate(current);
    if (next === null) return current;
    this.#documents.set(document, Buffer.from(next));
    return Buffer.from(next);
  }

  async readAll(prefix: string): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    for (const [name, bytes] of this.#documents) if (name.startsWith(prefix)) found.set(name, Buffer.from(bytes));
    return found;
  }

  async remove(documents: readonly string[]): Promise<void> {
    for (const document of documents) this.#documents.delete(document);
  }
}
