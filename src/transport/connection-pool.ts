/**
 * One pooled connection per dial target, dialled lazily on first use and again
 * after it died or was retired (Go client: one pooled connection per authority).
 * Concurrent requests to a target share one dial.
 */
import { untilAborted } from './abortable.ts';
import { ClientClosedError, ConnectionLostError } from './errors.ts';
import { PooledConnection } from './pooled-connection.ts';
import type { ConnectionSettings, DialTarget } from './pooled-connection.ts';

export class ConnectionPool {
  readonly #settings: ConnectionSettings;
  readonly #entries = new Map<string, Promise<PooledConnection>>();
  /** The dialled connections still pooled: what `openConnections` counts without awaiting. */
  readonly #dialled = new Map<string, PooledConnection>();
  #closed = false;

  constructor(settings: ConnectionSettings) {
    this.#settings = settings;
  }

  /** A usable connection to `target`, dialling when there is none. */
  async acquire(target: DialTarget, signal: AbortSignal | undefined): Promise<PooledConnection> {
    // A pooled connection found dead is replaced once; a fresh one dead on arrival fails the attempt.
    for (let round = 0; round < 2; round++) {
      if (this.#closed) throw new ClientClosedError();
      const pending = this.#entries.get(target.key) ?? this.#dial(target);
      const connection = signal ? await untilAborted(pending, signal) : await pending;
      if (connection.usable) return connection;
      this.#forget(target.key, pending);
    }
    throw new ConnectionLostError();
  }

  /** Dialled connections still in the pool and usable (the metrics read this at scrape time). */
  get openConnections(): number {
    let open = 0;
    for (const connection of this.#dialled.values()) if (connection.usable) open++;
    return open;
  }

  /** Stream slots held on the pooled connections, over all targets. */
  get openStreams(): number {
    let open = 0;
    for (const connection of this.#dialled.values()) open += connection.openStreams;
    return open;
  }

  /** Stops handing out `connection`; the next request to its target dials afresh. */
  retire(connection: PooledConnection): void {
    const pending = this.#entries.get(connection.target.key);
    pending?.then(
      (current) => current === connection && this.#forget(connection.target.key, pending),
      () => {},
    );
    connection.retire();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pending = [...this.#entries.values()];
    this.#entries.clear();
    this.#dialled.clear();
    await Promise.all(
      pending.map((entry) =>
        entry.then(
          (connection) => connection.destroy(),
          () => {},
        ),
      ),
    );
  }

  #dial(target: DialTarget): Promise<PooledConnection> {
    const pending = PooledConnection.dial(target, this.#settings);
    this.#entries.set(target.key, pending);
    pending.then(
      (connection) => {
        if (this.#entries.get(target.key) === pending) this.#dialled.set(target.key, connection);
        connection.onLost(() => this.#forget(target.key, pending));
        // close() may have run while this dial was in flight.
        if (this.#closed) void connection.destroy();
      },
      () => this.#forget(target.key, pending),
    );
    return pending;
  }

  #forget(key: string, pending: Promise<PooledConnection>): void {
    if (this.#entries.get(key) !== pending) return;
    this.#entries.delete(key);
    this.#dialled.delete(key);
  }
}
