/**
 * APPEND's store write (Mark SPEC §6.6; Go `AppendChecked`). The base is the
 * version the client named, so the join is built on exactly what it saw; the
 * joined write then goes through PUBLISH's checks with the same expected version.
 * Callers hold the document's write lock.
 */
import { maxBodyBytes } from '../../protocol/limits.ts';
import type { Metadata } from '../../protocol/metadata.ts';
import { locateDocument, readVersion } from './doc-reader.ts';
import { currentVersionForWrite, writeDocument, type WriterContext } from './doc-writer.ts';
import { conflict, notFound, sizeLimitMessage, StoreError } from './errors.ts';
import { containsDotDot, locate } from './paths.ts';
import { prepareAppendMeta, validateMeta } from './publisher-meta.ts';
import { joinContent } from './stored-format.ts';
import type { WriteOutcome } from './types.ts';

export async function appendDocument(
  ctx: WriterContext,
  reqPath: string,
  body: Uint8Array,
  meta: Metadata,
  expectedVersion: number,
): Promise<WriteOutcome> {
  // The handler answers both of these first (bad-request / server-error); here they are programming errors.
  if (!Number.isSafeInteger(expectedVersion) || expectedVersion < 1) {
    throw new RangeError(`APPEND requires expected-version >= 1, got ${expectedVersion}`);
  }
  if (body.length === 0) throw new RangeError('APPEND requires non-empty content');
  validateMeta(meta);
  if (containsDotDot(reqPath)) throw notFound(reqPath);
  const base = await readVersion(ctx, reqPath, expectedVersion);
  if (base === null) throw await missingBase(ctx, reqPath, expectedVersion);
  const joined = joinContent(base.body, body, maxBodyBytes);
  if (joined === null) throw new StoreError('ERR_TOO_LARGE', sizeLimitMessage);
  const merged = prepareAppendMeta(base.path, base.metadata, meta);
  return writeDocument(ctx, reqPath, joined, merged, expectedVersion);
}

/** The named base is gone: the document moved past it (conflict) or does not exist. */
async function missingBase(ctx: WriterContext, reqPath: string, expectedVersion: number): Promise<StoreError> {
  const loc = (await locateDocument(ctx, reqPath)) ?? locate(ctx.root, reqPath);
  const current = loc === null ? 0 : await currentVersionForWrite(ctx, loc);
  return current > 0 && current !== expectedVersion ? conflict(current) : notFound(reqPath);
}
