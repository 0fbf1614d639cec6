/**
 * Per-document write serialisation inside one process: writes to one path run
 * one after another, writes to different paths run concurrently. Readers take no
 * lock; every file they can see is complete (see durable-fs.ts), and a history
 * read whose versions a retention prune removes goes on over the ones left
 * (doc-reader.ts `readChain`), so a long VERSIONS never holds up a write.
 */
export class PathLocks {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => held);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Resolves once every write queued so far has finished. */
  async drain(): Promise<void> {
    await Promise.all([...this.#tails.values()]);
  }
}
