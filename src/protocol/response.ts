import { decodeYamlMap, encodeYamlMap } from './yaml-map.ts';
import { joinFrontmatter, splitFrontmatter, type SplitPayload } from './frontmatter.ts';
import { statusTitle, type Status } from './status.ts';
import type { Metadata } from './metadata.ts';
import { errorWithCode } from '../errors/coded-error.ts';

/**
 * A response: `---\n` yaml(metadata ∪ {status}) `---\n` body. The status sits in
 * its sorted position among the keys; the block is never empty.
 */
export type MarkResponse = {
  /** A known status when we produce it; any word when we parse one (clients accept unknown statuses). */
  status: string;
  metadata: Metadata;
  body: Uint8Array;
};

const empty = new Uint8Array(0);

export function encodeResponse(response: MarkResponse): Uint8Array {
  const block = encodeYamlMap({ ...response.metadata, status: response.status });
  return joinFrontmatter(block, response.body);
}

export class ResponseParseError extends errorWithCode('ERR_RESPONSE_PARSE') {}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a response as Go's ParseResponse does: without a fence the status is ""
 * and everything is body; otherwise `status` comes out of the metadata and every
 * other key stays, as a string. Unknown keys and statuses are kept, not refused.
 */
export function parseResponse(bytes: Uint8Array): MarkResponse {
  let split: SplitPayload;
  try {
    split = splitFrontmatter(bytes);
  } catch (error) {
    throw new ResponseParseError('response metadata block is not closed', { cause: error });
  }
  if (split.block === null) return { status: '', metadata: {}, body: split.body };
  let metadata: Metadata;
  try {
    metadata = decodeYamlMap(utf8.decode(split.block));
  } catch (error) {
    throw new ResponseParseError('response metadata block is not a string map', { cause: error });
  }
  const { status = '', ...rest } = metadata;
  return { status, metadata: rest, body: split.body };
}

/** The body of an error response: a blank line, `# <Title>`, a blank line, the message. */
export function errorBody(status: string, message: string): string {
  return `\n# ${statusTitle(status)}\n\n${message}\n`;
}

export function errorResponse(status: Status, message: string, metadata: Metadata = {}): MarkResponse {
  return { status, metadata, body: Buffer.from(errorBody(status, message)) };
}

export function metadataOnlyResponse(status: Status, metadata: Metadata = {}): MarkResponse {
  return { status, metadata, body: empty };
}
