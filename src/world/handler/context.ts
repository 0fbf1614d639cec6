import type { MarkRequest } from '../../protocol/request.ts';
import type { TokenSnapshot } from '../auth/index.ts';
import type { FileStore } from '../store/index.ts';
import type { Catalog } from '../catalog/index.ts';
import type { HashIndex } from '../hash-index.ts';
import type { BodyIndex } from '../body-index.ts';
import type { ChangeFeed } from '../change-hub.ts';

export type WorldLogger = {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
};

/** Everything the verb handlers share for the life of a world. */
export type WorldContext = {
  name: string;
  store: FileStore;
  catalog: Catalog;
  hashIndex: HashIndex;
  bodyIndex: BodyIndex | null;
  /** The current token snapshot; null when the world has no tokens file. */
  tokens: () => TokenSnapshot | null;
  readOnly: boolean;
  log: WorldLogger;
  /** The change feed WATCH reads; null answers WATCH `unsupported verb` (clients fall back to polling). */
  changes: ChangeFeed | null;
};

/** One request, parsed and canonicalised, with the token snapshot pinned for its whole life. */
export type RequestScope = {
  request: MarkRequest;
  /** The path as sent. */
  rawPath: string;
  /** `path.Clean("/" + raw)`. */
  path: string;
  /** Whether the raw path ended in `/` (a prefix, for WATCH). */
  trailingSlash: boolean;
  tokens: TokenSnapshot | null;
  token: string | undefined;
  /** Aborts when the client gave up or the deadline passed (src/transport/serve-stream.ts); absent in-process. */
  signal?: AbortSignal | undefined;
};

export const silentLogger: WorldLogger = { info() {}, warn() {}, error() {} };
