/**
 * File backend of the tokens sink: edits the world's own tokens.toml
 * (`worlds[].tokensFile`) in place, atomically, keeping the file's mode. The
 * world server watches the file and reloads it; until it has, the gateway's
 * first-mint retry loop absorbs the `unauthorized` answers. A concurrent
 * writer (an operator minting a token by hand) is detected by re-reading just
 * before the replace, and the edit is redone on the fresh text.
 */
import { KeyedLock, modeOr, readIfExists, replaceFile } from '../../../files/durable-file.ts';
import { ensureTokenEntry, TokensTomlError } from './tokens-toml-edit.ts';
import { TokensSinkError, type EnsureOutcome, type WorldTokensSink } from './sink.ts';
import type { WriteTokenRecord } from './record.ts';
import type { WorldDefinition } from '../world-definition.ts';

const maxEditAttempts = 5;

export class FileTokensSink implements WorldTokensSink {
  readonly #lock = new KeyedLock();

  ensure(world: WorldDefinition, record: WriteTokenRecord): Promise<EnsureOutcome> {
    const path = world.tokens.file;
    if (path === undefined)
      return Promise.reject(new TokensSinkError(world.name, `world ${JSON.stringify(world.name)} has no tokensFile`));
    return this.#lock.run(path, () => this.#edit(world.name, path, record));
  }

  async #edit(world: string, path: string, record: WriteTokenRecord): Promise<EnsureOutcome> {
    for (let attempt = 1; attempt <= maxEditAttempts; attempt++) {
      const before = await this.#read(world, path);
      const edit = this.#apply(world, path, before, record);
      if (edit.outcome === 'unchanged') return edit.outcome;
      const mode = await modeOr(path, 0o600);
      // Another writer between our read and now: redo the edit on its text.
      const latest = await this.#read(world, path);
      if (latest !== before) continue;
      try {
        await replaceFile(path, Buffer.from(edit.text), mode);
      } catch (cause) {
        throw new TokensSinkError(world, `cannot write tokens file ${path}`, { cause });
      }
      return edit.outcome;
    }
    throw new TokensSinkError(world, `tokens file ${path} kept changing while the broker edited it`);
  }

  #apply(world: string, path: string, text: string, record: WriteTokenRecord) {
    try {
      return ensureTokenEntry(text, record);
    } catch (error) {
      if (!(error instanceof TokensTomlError)) throw error;
      throw new TokensSinkError(world, `tokens file ${path}: ${error.message}; left unchanged`, { cause: error });
    }
  }

  async #read(world: string, path: string): Promise<string> {
    try {
      return (await readIfExists(path))?.toString('utf8') ?? '';
    } catch (cause) {
      throw new TokensSinkError(world, `cannot read tokens file ${path}`, { cause });
    }
  }
}
