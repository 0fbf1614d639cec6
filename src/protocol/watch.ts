/**
 * The WATCH change feed's wire format (Mark SPEC §6.8): after the request, the
 * server writes fenced metadata blocks with no bodies, an acknowledgement
 * first, then events and heartbeats, and a terminal status last. A block is
 * `---\n` + the sorted key map (with `status` among the keys on control
 * blocks) + `---\n`, at most 8192 bytes with its fences, so a reader needs a
 * fixed buffer only. Events are hints: a client reads the document afterwards.
 */
import { errorWithCode } from '../errors/coded-error.ts';
import { joinFrontmatter } from './frontmatter.ts';
import { isValidMetaKey, isValidMetaValue, type Metadata } from './metadata.ts';
import { isHashPath, isValidRequestPath } from './paths.ts';
import { decodeYamlMap, encodeYamlMap } from './yaml-map.ts';

/** One block, fences included (`MaxWatchBlockLength`). */
export const maxWatchBlockBytes = 8192;
/** An idle stream carries a heartbeat this often (`WatchHeartbeatInterval`). */
export const watchHeartbeatMs = 20_000;
/** A client treats a stream with no block for this long as stalled and reopens it. */
export const watchStallMs = 3 * watchHeartbeatMs;

export const WatchOp = { Publish: 'publish', Append: 'append', Archive: 'archive' } as const;
export type WatchOp = (typeof WatchOp)[keyof typeof WatchOp];

export function isKnownWatchOp(op: string): op is WatchOp {
  return op === WatchOp.Publish || op === WatchOp.Append || op === WatchOp.Archive;
}

export class WatchFormatError extends errorWithCode('ERR_WATCH_FORMAT') {}

/**
 * A position in a world's change sequence. The epoch changes whenever the
 * sequence restarts; order holds within one epoch only. Clients pass cursors
 * back opaquely.
 */
export type Cursor = { epoch: string; seq: bigint };

const epochPattern = /^[A-Za-z0-9._-]{1,64}$/;
const seqPattern = /^(0|[1-9][0-9]*)$/;
const maxSeq = (1n << 64n) - 1n;

/** `<epoch>:<seq>`, seq a decimal without leading zeros (so the text round-trips byte for byte); null otherwise. */
export function parseCursor(text: string): Cursor | null {
  const at = text.indexOf(':');
  if (at < 0) return null;
  const epoch = text.slice(0, at);
  const seq = text.slice(at + 1);
  if (!epochPattern.test(epoch) || !seqPattern.test(seq)) return null;
  const value = BigInt(seq);
  return value > maxSeq ? null : { epoch, seq: value };
}

export function formatCursor(cursor: Cursor): string {
  return `${cursor.epoch}:${cursor.seq}`;
}

/** A block: `status` set on control blocks (acknowledgement, heartbeat, terminal), "" on events. */
export type WatchBlock = { status: string; metadata: Metadata };

/** A control block; a cursor is left out when there is none (a refusal before subscription). */
export function watchControl(status: string, cursor: Cursor | null): WatchBlock {
  return { status, metadata: cursor === null ? {} : { cursor: formatCursor(cursor) } };
}

export function encodeWatchBlock(block: WatchBlock): Uint8Array {
  for (const [key, value] of Object.entries(block.metadata))
    if (!isValidMetaKey(key) || !isValidMetaValue(value)) throw new WatchFormatError(`invalid watch key ${key}`);
  const map = block.status === '' ? block.metadata : { ...block.metadata, status: block.status };
  const bytes = joinFrontmatter(encodeYamlMap(map), new Uint8Array(0));
  if (bytes.byteLength > maxWatchBlockBytes)
    throw new WatchFormatError(`watch block of ${bytes.byteLength} bytes exceeds ${maxWatchBlockBytes}`);
  return bytes;
}

/** One change: what changed, and the cursor to resume after it. */
export type WatchEvent = {
  cursor: Cursor;
  path: string;
  version: number;
  op: string;
  /** `sha256-…` of the new content; absent when the op stored none. */
  hash?: string;
  agent?: string;
  user?: string;
};

export function eventBlock(event: WatchEvent): WatchBlock {
  const metadata: Metadata = {
    cursor: formatCursor(event.cursor),
    path: event.path,
    version: String(event.version),
    op: event.op,
  };
  if (event.hash) metadata.hash = event.hash;
  if (event.agent) metadata.agent = event.agent;
  if (event.user) metadata.user = event.user;
  return { status: '', metadata };
}

/**
 * An event block read back. Keys the event does not define are ignored; an op
 * this version does not know comes back as is (the caller skips it).
 */
export function parseEvent(block: WatchBlock): WatchEvent {
  if (block.status !== '') throw new WatchFormatError('a control block is not an event');
  const { metadata } = block;
  const cursor = parseCursor(metadata.cursor ?? '');
  if (cursor === null) throw new WatchFormatError(`invalid event cursor ${JSON.stringify(metadata.cursor ?? '')}`);
  const path = metadata.path ?? '';
  if (!isValidRequestPath(path)) throw new WatchFormatError(`invalid event path ${JSON.stringify(path)}`);
  const version = Number(metadata.version);
  if (!/^[0-9]+$/.test(metadata.version ?? '') || !Number.isSafeInteger(version) || version < 1)
    throw new WatchFormatError(`invalid event version ${JSON.stringify(metadata.version ?? '')}`);
  const op = metadata.op ?? '';
  if (op === '') throw new WatchFormatError('event without op');
  const event: WatchEvent = { cursor, path, version, op };
  if (metadata.hash) {
    if (!isHashPath(`/${metadata.hash}`)) throw new WatchFormatError(`invalid event hash ${metadata.hash}`);
    event.hash = metadata.hash;
  }
  if (metadata.agent) event.agent = metadata.agent;
  if (metadata.user) event.user = metadata.user;
  return event;
}

const fence = '---';

/**
 * Reads blocks out of a byte stream as it arrives, holding at most one block:
 * `push` each chunk, then take complete blocks with `next` until it answers
 * null. A block that breaks the grammar or exceeds 8192 bytes is a
 * WatchFormatError; the stream is then unusable. Nothing past the block `next`
 * returned is read, so a refusal answered as an ordinary response (its body
 * after the block) can be taken and the rest left alone.
 */
export class WatchDecoder {
  #pending = Buffer.alloc(0);
  #lines: string[] | null = null;
  #size = 0;

  push(chunk: Uint8Array): void {
    this.#pending = this.#pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#pending, chunk]);
  }

  next(): WatchBlock | null {
    for (;;) {
      const end = this.#pending.indexOf(0x0a);
      if (end < 0) {
        if (this.#size + this.#pending.length > maxWatchBlockBytes) throw this.#tooLarge();
        return null;
      }
      const line = this.#pending.subarray(0, end).toString('utf8');
      this.#pending = this.#pending.subarray(end + 1);
      this.#size += end + 1;
      if (this.#size > maxWatchBlockBytes) throw this.#tooLarge();
      const block = this.#line(line);
      if (block !== null) return block;
    }
  }

  /** True when the stream stopped between blocks (a cut inside a block is malformed). */
  get atBoundary(): boolean {
    return this.#lines === null && this.#pending.length === 0;
  }

  #line(line: string): WatchBlock | null {
    if (this.#lines === null) {
      if (line !== fence) throw new WatchFormatError('expected an opening fence');
      this.#lines = [];
      this.#size = fence.length + 1;
      return null;
    }
    if (line !== fence) {
      this.#lines.push(line);
      return null;
    }
    const text = this.#lines.map((l) => `${l}\n`).join('');
    this.#lines = null;
    this.#size = 0;
    let map: Record<string, string>;
    try {
      map = decodeYamlMap(text);
    } catch (error) {
      throw new WatchFormatError('watch block is not a string map', { cause: error });
    }
    const { status = '', ...metadata } = map;
    return { status, metadata };
  }

  #tooLarge(): WatchFormatError {
    return new WatchFormatError(`watch block exceeds ${maxWatchBlockBytes} bytes`);
  }
}
