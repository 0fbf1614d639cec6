/**
 * File backend of the write-token store: one JSON document per world in
 * `storage.dir`, named and shaped as the Go broker's file backend writes it
 * (`demarkus-broker-write-token-<world>.json`, Go broker `world_write_tokens.go`
 * `{"label","rawToken","entry":{"Hash","Paths","Operations","Expires"}}`), so
 * a state directory moves between the two. Files are 0600; the version is the
 * SHA-256 of the file's bytes. Creation is exclusive across processes; a
 * replacement is checked against the version under an in-process lock (two
 * processes replacing at once is last-writer-wins, as in the Go backend).
 */
import { join } from 'node:path';
import { sha256Hex } from '../../../protocol/token.ts';
import { writeTokenFileName } from '../../config/index.ts';
import { createExclusive, KeyedLock, readIfExists, replaceFile } from '../../../files/durable-file.ts';
import type { WriteTokenRecord } from './record.ts';
import { decodeWriteTokenRecord, encodeWriteTokenRecord } from './record-json.ts';
import { WriteTokenConflictError, WriteTokenStoreError, type StoredWriteToken, type WriteTokenStore } from './store.ts';

const fileMode = 0o600;

export class FileWriteTokenStore implements WriteTokenStore {
  readonly dir: string;
  readonly #lock = new KeyedLock();

  constructor(dir: string) {
    this.dir = dir;
  }

  pathOf(world: string): string {
    return join(this.dir, writeTokenFileName(world));
  }

  async get(world: string): Promise<StoredWriteToken | null> {
    const bytes = await this.#read(world);
    return bytes === null ? null : { record: decodeWriteTokenRecord(world, bytes), version: sha256Hex(bytes) };
  }

  put(world: string, record: WriteTokenRecord, expectedVersion: string | null): Promise<StoredWriteToken> {
    return this.#lock.run(world, async () => {
      const bytes = encodeWriteTokenRecord(record);
      const path = this.pathOf(world);
      try {
        if (expectedVersion === null) {
          if (!(await createExclusive(path, bytes, fileMode))) throw new WriteTokenConflictError(world);
        } else {
          const current = await readIfExists(path);
          if (current === null || sha256Hex(current) !== expectedVersion) throw new WriteTokenConflictError(world);
          await replaceFile(path, bytes, fileMode);
        }
      } catch (error) {
        if (error instanceof WriteTokenConflictError) throw error;
        throw new WriteTokenStoreError(
          world,
          `cannot write the write-token record of world ${JSON.stringify(world)} in ${this.dir}`,
          { cause: error },
        );
      }
      return { record, version: sha256Hex(bytes) };
    });
  }

  async #read(world: string): Promise<Buffer | null> {
    try {
      return await readIfExists(this.pathOf(world));
    } catch (cause) {
      throw new WriteTokenStoreError(
        world,
        `cannot read the write-token record of world ${JSON.stringify(world)} in ${this.dir}`,
        { cause },
      );
    }
  }
}
