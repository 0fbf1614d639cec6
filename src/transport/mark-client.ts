/**
 * Mark requests as values: encodes a request, sends it through the pooled
 * transport (reads may be retried, writes go at most once) and parses the
 * answer. The CLI, the broker and the tests all speak to worlds through this.
 */
import { encodeRequest, type MarkRequest } from '../protocol/request.ts';
import { parseResponse, type MarkResponse } from '../protocol/response.ts';
import { isReadVerb, type Verb } from '../protocol/verbs.ts';
import type { Metadata } from '../protocol/metadata.ts';
import { MarkTransportClient, type MarkTransportClientOptions } from './client.ts';
import type { MarkAuthority } from './authority.ts';
import { WatchDecoder, WatchFormatError, type WatchBlock } from '../protocol/watch.ts';

export type MarkCall = {
  verb: Verb;
  path: string;
  metadata?: Metadata;
  body?: Uint8Array | string;
  /** Per attempt; default the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** The whole call, retries included; default the client's `budgetMs`. */
  budgetMs?: number;
  signal?: AbortSignal;
};

export class MarkClient {
  readonly transport: MarkTransportClient;

  constructor(options: MarkTransportClientOptions | MarkTransportClient = {}) {
    this.transport = options instanceof MarkTransportClient ? options : new MarkTransportClient(options);
  }

  /** Pooled QUIC connections dialled and still usable (see MarkTransportClient). */
  get openConnections(): number {
    return this.transport.openConnections;
  }

  async call(authority: MarkAuthority, call: MarkCall): Promise<MarkResponse> {
    const body = typeof call.body === 'string' ? Buffer.from(call.body) : (call.body ?? new Uint8Array(0));
    const request: MarkRequest = { verb: call.verb, path: call.path, metadata: call.metadata ?? {}, body };
    const bytes = await this.transport.request(authority, encodeRequest(request), {
      idempotent: isReadVerb(call.verb),
      ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
      ...(call.budgetMs === undefined ? {} : { budgetMs: call.budgetMs }),
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    });
    return parseResponse(bytes);
  }

  /**
   * Opens a WATCH (Mark SPEC §6.8) and yields its blocks as they arrive: the
   * first is the acknowledgement, or a refusal (any other status, then the
   * stream ends: a world without a change hub answers `bad-request`). A block
   * that breaks the grammar throws WatchFormatError; the caller reopens with
   * its last cursor. Leaving the loop or aborting `signal` closes the stream;
   * an abort frees its slot on the connection even if the loop is never left
   * (MarkTransportClient.stream).
   */
  async *watch(
    authority: MarkAuthority,
    watch: { path: string; since?: string; auth?: string },
    signal: AbortSignal,
  ): AsyncGenerator<WatchBlock> {
    const metadata: Metadata = {};
    if (watch.since) metadata.since = watch.since;
    if (watch.auth) metadata.auth = watch.auth;
    const request = encodeRequest({ verb: 'WATCH', path: watch.path, metadata, body: new Uint8Array(0) });
    const decoder = new WatchDecoder();
    let first = true;
    for await (const chunk of this.transport.stream(authority, request, signal)) {
      decoder.push(chunk);
      for (let block = decoder.next(); block !== null; block = decoder.next()) {
        yield block;
        // A refusal is an ordinary response: what follows is its body, not blocks.
        if (first && block.status !== 'ok') return;
        first = false;
      }
    }
    if (!decoder.atBoundary) throw new WatchFormatError('watch stream ended inside a block');
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
