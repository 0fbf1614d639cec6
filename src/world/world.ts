import { createStreamingHandler, createWorldHandler, respond, type IncomingRequest } from './handler/serve.ts';
import { ChangeFeed, type ChangeHint } from './change-hub.ts';
import { WatchOp, watchHeartbeatMs } from '../protocol/watch.ts';
import type { StreamedAnswer } from '../transport/index.ts';
import { silentLogger, type WorldContext, type WorldLogger } from './handler/context.ts';
import { FileStore, type ChangeEvent, type DocState, type WriteCheck, type ArchiveCheck } from './store/index.ts';
import { Catalog, entryFromDocument } from './catalog/index.ts';
import { HashIndex } from './hash-index.ts';
import { TokenSource } from './auth/index.ts';
import { BodyIndex } from './body-index.ts';
import type { MarkResponse } from '../protocol/response.ts';

export type WorldOptions = {
  /** The content directory (Go layout). Created when missing. */
  root: string;
  /** A tokens.toml; without one every write is refused and every read is public. */
  tokensFile?: string;
  /** Shown in the generated agent manifest. */
  name?: string;
  readOnly?: boolean;
  /** The clock for new versions (tests pin it). */
  now?: () => Date;
  log?: WorldLogger;
  /** Full-text LOOKUP (`match: body`); on by default. Off, body queries are answered from the catalog. */
  bodySearch?: boolean;
  /** Policy and quota hooks run by the store before it writes (Go knowledge backends). */
  writeCheck?: WriteCheck;
  archiveCheck?: ArchiveCheck;
  /** The WATCH change feed: on by default (`false` answers WATCH `unsupported verb`, as a Go world without a hub). */
  watch?:
    | false
    | { heartbeatMs?: number; maxWatches?: number; maxWatchesPerAddress?: number; ringSize?: number; epoch?: string };
};

/** Open WATCH streams per world, beyond which WATCH answers rate-limited. */
export const defaultMaxWatches = 256;

export type World = {
  readonly context: WorldContext;
  /** Wire bytes in, wire bytes out; never throws. */
  readonly handle: (incoming: IncomingRequest) => Promise<Uint8Array>;
  /** What the listener serves: the same, with WATCH streamed over time. */
  readonly serve: (incoming: IncomingRequest) => Promise<Uint8Array | StreamedAnswer>;
  /** The same pipeline, answering the parsed response (for in-process tests and tools). */
  readonly respond: (incoming: IncomingRequest) => Promise<MarkResponse>;
  close(): Promise<void>;
};

/**
 * Opens a world: the store, its derived state (catalog, hash index, optional
 * body index) rebuilt from the current documents, and the token source. The
 * derived state follows every durable change through the store's change feed.
 */
export async function openWorld(options: WorldOptions): Promise<World> {
  const log = options.log ?? silentLogger;
  const store = await FileStore.open(options.root, {
    ...(options.now ? { now: options.now } : {}),
    ...(options.readOnly ? { readOnly: true } : {}),
    ...(options.writeCheck ? { writeCheck: options.writeCheck } : {}),
    ...(options.archiveCheck ? { archiveCheck: options.archiveCheck } : {}),
  });
  const tokens =
    options.tokensFile === undefined
      ? null
      : await TokenSource.open(options.tokensFile, {
          onReloadError: (error) =>
            log.warn({ err: String(error) }, 'tokens file reload failed; keeping the previous tokens'),
        });
  const catalog = new Catalog();
  const hashIndex = new HashIndex();
  const bodyIndex = options.bodySearch === false ? null : new BodyIndex(catalog);
  const track = (doc: DocState) => {
    if (doc.archived) return forget(doc.path);
    catalog.upsert(
      entryFromDocument({
        path: doc.path,
        body: Buffer.from(doc.current.body).toString(),
        metadata: doc.current.metadata,
        modified: doc.current.modified,
      }),
    );
    hashIndex.set(doc.path, doc.current.contentHash);
    bodyIndex?.upsert(doc);
  };
  const forget = (path: string) => {
    catalog.remove(path);
    hashIndex.remove(path);
    bodyIndex?.remove(path);
  };
  for await (const doc of store.documents()) track(doc);
  const changes =
    options.watch === false
      ? null
      : new ChangeFeed({
          heartbeatMs: options.watch?.heartbeatMs ?? watchHeartbeatMs,
          maxWatches: options.watch?.maxWatches ?? defaultMaxWatches,
          ...(options.watch?.maxWatchesPerAddress === undefined
            ? {}
            : { maxWatchesPerAddress: options.watch.maxWatchesPerAddress }),
          ...(options.watch?.ringSize === undefined ? {} : { ringSize: options.watch.ringSize }),
          ...(options.watch?.epoch === undefined ? {} : { epoch: options.watch.epoch }),
        });
  store.onChange((event: ChangeEvent) => {
    track(event.doc);
    changes?.hub.publish(changeHint(event));
  });
  const context: WorldContext = {
    name: options.name ?? 'world',
    store,
    catalog,
    hashIndex,
    bodyIndex,
    tokens: () => tokens?.snapshot() ?? null,
    readOnly: options.readOnly ?? false,
    log,
    changes,
  };
  return {
    context,
    handle: createWorldHandler(context),
    serve: createStreamingHandler(context),
    respond: (incoming) => respond(context, incoming),
    async close() {
      changes?.hub.close();
      await tokens?.close();
      await store.close();
    },
  };
}

/**
 * The hint a committed change sends watchers (the Go `changefeed.Emit`): an
 * unarchive is a publish, since the document is visible again at its current
 * version; the hash is the current content's; `agent` and `user` are echoed.
 */
function changeHint(event: ChangeEvent): ChangeHint {
  const { current } = event.doc;
  const hint: ChangeHint = {
    path: event.path,
    version: event.version,
    op: event.op === 'unarchive' ? WatchOp.Publish : event.op,
    hash: current.contentHash,
  };
  if (current.metadata.agent) hint.agent = current.metadata.agent;
  if (current.metadata.user) hint.user = current.metadata.user;
  return hint;
}
