import { canonicalPath, hasDotDotSegment, hasVersionsSegment } from '../../protocol/paths.ts';
import { encodeResponse, type MarkResponse } from '../../protocol/response.ts';
import { parseRequest, RequestParseError, type MarkRequest } from '../../protocol/request.ts';
import { isReadVerb, Verb } from '../../protocol/verbs.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { handleFetch } from './fetch.ts';
import { handleList } from './list.ts';
import { handleVersions } from './versions.ts';
import { handlePublish } from './publish.ts';
import { handleAppend } from './append.ts';
import { handleArchive } from './archive.ts';
import { handleLookup } from './lookup.ts';
import { badRequest, internalError, notFound, ok, serverError } from './respond.ts';
import { handleWatch } from './watch.ts';
import type { StreamedAnswer } from '../../transport/index.ts';

type VerbHandler = (ctx: WorldContext, scope: RequestScope) => Promise<MarkResponse>;

const handlers: Record<Exclude<Verb, 'WATCH'>, VerbHandler> = {
  FETCH: handleFetch,
  LIST: handleList,
  VERSIONS: handleVersions,
  PUBLISH: handlePublish,
  APPEND: handleAppend,
  ARCHIVE: handleArchive,
  LOOKUP: handleLookup,
};

const healthBody = '# Health Check\n\nServer is healthy.\n';

export type IncomingRequest = {
  bytes: Uint8Array;
  truncated?: boolean;
  /** The caller's address key (`addressKey`: IPv4 as is, IPv6 by /64); absent in-process. */
  from?: string;
  /** The listener's request signal: the client gave up, the deadline passed, or the listener closes. */
  signal?: AbortSignal;
};

/**
 * The world's request pipeline, in the Go handler's order (`server/internal/handler/handler.go` `Serve`):
 * parse, refuse `..` before any auth, canonicalise once, pin one token snapshot,
 * then dispatch by verb. Ours: a read of a path through a history folder is not-found, whatever is there. Unexpected failures are logged and answered
 * `internal error`; it throws only when the client already gave up (its signal aborted), as then
 * nobody reads an answer.
 */
export function createWorldHandler(ctx: WorldContext): (incoming: IncomingRequest) => Promise<Uint8Array> {
  return async (incoming) => encodeResponse(await respond(ctx, incoming));
}

/** The pipeline as the listener serves it: WATCH becomes an answer streamed over time, everything else bytes. */
export function createStreamingHandler(
  ctx: WorldContext,
): (incoming: IncomingRequest) => Promise<Uint8Array | StreamedAnswer> {
  return async (incoming) => {
    const answer = await route(ctx, incoming);
    return 'streamed' in answer ? answer : encodeResponse(answer);
  };
}

/**
 * One complete answer, for in-process callers: they cannot hold a stream, so
 * WATCH is refused here (over QUIC it streams, createStreamingHandler).
 */
export async function respond(ctx: WorldContext, incoming: IncomingRequest): Promise<MarkResponse> {
  const answer = await route(ctx, incoming);
  return 'streamed' in answer ? badRequest('WATCH needs a stream of its own') : answer;
}

async function route(ctx: WorldContext, incoming: IncomingRequest): Promise<MarkResponse | StreamedAnswer> {
  // Mark SPEC §7: a request past the size limits is a read failure, not a grammar error.
  if (incoming.truncated) return serverError('could not read request');
  let request: MarkRequest;
  try {
    request = parseRequest(incoming.bytes);
  } catch (error) {
    if (!(error instanceof RequestParseError)) throw error;
    return error.kind === 'malformed' ? badRequest('bad request') : serverError('could not read request');
  }
  if (hasDotDotSegment(request.path)) return notFound(`${request.path} not found`);
  const scope: RequestScope = {
    request,
    rawPath: request.path,
    path: canonicalPath(request.path),
    trailingSlash: request.path.endsWith('/'),
    tokens: ctx.tokens(),
    token: request.metadata.auth,
    signal: incoming.signal,
  };
  if (request.verb === Verb.Fetch && scope.path === '/health') return ok({}, healthBody);
  // A history folder (`/docs/versions/a.md`) is the store's layout, not a document: read-auth patterns
  // such as `/docs/*.md` do not cover it, so its answer must not depend on what lies there (docs/decisions.md).
  if (isReadVerb(request.verb) && hasVersionsSegment(scope.path)) return notFound(`${scope.path} not found`);
  if (request.verb === Verb.Watch) return handleWatch(ctx, scope, incoming.from);
  try {
    return await handlers[request.verb](ctx, scope);
  } catch (error) {
    // Called off: the listener has already stopped waiting for this answer; nothing failed.
    if (incoming.signal?.aborted) throw error;
    ctx.log.error(
      { verb: request.verb, path: scope.path, err: error instanceof Error ? error.stack : String(error) },
      'request failed',
    );
    return internalError();
  }
}
