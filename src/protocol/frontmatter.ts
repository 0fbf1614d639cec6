/**
 * Fenced frontmatter as the Go `SplitFrontmatter` reads it (Mark SPEC §4):
 *
 *   payload = [ "---\n" block "\n---\n" ] body
 *
 * A payload that does not start with `---\n` is all body. The block ends at the
 * first `\n---\n`; a block that runs to the end and ends in `\n---` is accepted
 * with an empty body ("closed at EOF"). Anything else is unclosed.
 *
 * Note the empty block is `---\n\n---\n`: `---\n---\n` is not an empty block
 * (its block would need a line of its own), which is why encoders write the blank
 * line when there is no metadata but the body itself starts with `---\n`.
 */
import { CodedError } from '../errors/coded-error.ts';

const openFence = Buffer.from('---\n');
const closeFence = Buffer.from('\n---\n');
const closeAtEof = Buffer.from('\n---');

export type SplitPayload = {
  /** The block's bytes without fences, or null when the payload had no block. */
  block: Uint8Array | null;
  body: Uint8Array;
};

export class UnclosedFrontmatterError extends CodedError<'ERR_UNCLOSED_FRONTMATTER'> {
  constructor() {
    super('ERR_UNCLOSED_FRONTMATTER', 'unclosed frontmatter');
  }
}

export function splitFrontmatter(payload: Uint8Array): SplitPayload {
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (!startsWith(bytes, openFence)) return { block: null, body: payload };
  const inner = bytes.subarray(openFence.length);
  const end = inner.indexOf(closeFence);
  if (end >= 0) return { block: inner.subarray(0, end), body: inner.subarray(end + closeFence.length) };
  if (endsWith(inner, closeAtEof))
    return { block: inner.subarray(0, inner.length - closeAtEof.length), body: new Uint8Array(0) };
  throw new UnclosedFrontmatterError();
}

function startsWith(bytes: Buffer, prefix: Buffer): boolean {
  return bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);
}

function endsWith(bytes: Buffer, suffix: Buffer): boolean {
  return bytes.length >= suffix.length && bytes.subarray(bytes.length - suffix.length).equals(suffix);
}

/**
 * Frames metadata text and a body. With no metadata the body goes bare, unless it
 * would itself look like a block: then the empty block `---\n\n---\n` goes first.
 */
export function joinFrontmatter(blockText: string | null, body: Uint8Array): Uint8Array {
  if (blockText === null || blockText === '') {
    const needsEmptyBlock = startsWith(Buffer.from(body.buffer, body.byteOffset, body.byteLength), openFence);
    return needsEmptyBlock ? Buffer.concat([Buffer.from('---\n\n---\n'), body]) : body;
  }
  return Buffer.concat([openFence, Buffer.from(blockText), Buffer.from('---\n'), body]);
}
