/**
 * File backend of the durable state: one file per document in `storage.dir`,
 * 0600, replaced atomically (temp file, fsync, rename). Updates of one
 * document are serialised in this process; like the write-token file backend,
 * one broker process owns a state directory.
 */
import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyedLock, readIfExists, replaceFile, syncDir } from '../../files/durable-file.ts';
import { StateStoreError, type DocumentMutation, type StateDocumentStore } from './document-store.ts';

const fileMode = 0o600;

export class FileStateStore implements StateDocumentStore {
  readonly dir: string;
  readonly #lock = new KeyedLock();

  constructor(dir: string) {
    this.dir = dir;
  }

  pathOf(document: string): string {
    if (!/^[a-z0-9_.-]+$/i.test(document) || document.startsWith('.'))
      throw new RangeError(`invalid state document name ${JSON.stringify(document)}`);
    return join(this.dir, document);
  }

  async read(document: string): Promise<Buffer | null> {
    try {
      return await readIfExists(this.pathOf(document));
    } catch (cause) {
      throw new StateStoreError(document, `cannot read state document ${document} in ${this.dir}`, { cause });
    }
  }

  update(document: string, mutate: DocumentMutation): Promise<Buffer | null> {
    return this.#lock.run(document, async () => {
      const current = await this.read(document);
      const next = mutate(current);
      if (next === null || current?.equals(next)) return current;
      try {
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
        await replaceFile(this.pathOf(document), next, fileMode);
      } catch (cause) {
        throw new StateStoreError(document, `cannot write state document ${document} in ${this.dir}`, { cause });
      }
      return Buffer.from(next);
    });
  }

  /** Temp files of `replaceFile` start with a dot, so a prefix (which never does) leaves them out. */
  async readAll(prefix: string): Promise<Map<string, Buffer>> {
    this.pathOf(prefix);
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw new StateStoreError(prefix, `cannot list state documents ${prefix}* in ${this.dir}`, { cause });
    }
    const found = new Map<string, Buffer>();
    for (const name of names.filter((entry) => entry.startsWith(prefix)).sort()) {
      const bytes = await this.read(name);
      if (bytes !== null) found.set(name, bytes);
    }
    return found;
  }

  async remove(documents: readonly string[]): Promise<void> {
    let removed = 0;
    for (const document of documents) {
      await this.#lock.run(document, async () => {
        try {
          await unlink(this.pathOf(document));
          removed += 1;
        } catch (cause) {
          if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw new StateStoreError(document, `cannot remove state document ${document} in ${this.dir}`, { cause });
        }
      });
    }
    if (removed === 0) return;
    try {
      await syncDir(this.dir);
    } catch (cause) {
      throw new StateStoreError(documents[0]!, `cannot sync the state directory ${this.dir}`, { cause });
    }
  }
}
