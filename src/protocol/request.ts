import { decodeYamlMap, encodeYamlMap, YamlMapError } from './yaml-map.ts';
import { joinFrontmatter, splitFrontmatter, UnclosedFrontmatterError, type SplitPayload } from './frontmatter.ts';
import { maxBodyBytes, maxRequestFrontmatterBytes, maxRequestLineBytes, maxRequestPayloadBytes } from './limits.ts';
import { isValidRequestPath } from './paths.ts';
import { isVerb, type Verb } from './verbs.ts';
import type { Metadata } from './metadata.ts';
import { CodedError } from '../errors/coded-error.ts';

/** A request on the wire: `VERB SP PATH LF [---\n block \n---\n] body`, ended by the stream FIN. */
export type MarkRequest = {
  verb: Verb;
  path: string;
  metadata: Metadata;
  body: Uint8Array;
};

/**
 * Why a request could not be parsed. The Go server answers the two kinds
 * differently (handler.writeParseError): a grammar error is `bad-request`
 * ("bad request"); a read failure or a size limit is `server-error`
 * ("could not read request").
 */
export type RequestParseErrorKind = 'malformed' | 'unreadable';

export class RequestParseError extends CodedError<'ERR_REQUEST_PARSE'> {
  readonly kind: RequestParseErrorKind;
  constructor(kind: RequestParseErrorKind, detail: string) {
    super('ERR_REQUEST_PARSE', detail);
    this.kind = kind;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lf = 0x0a;

export function parseRequest(bytes: Uint8Array): MarkRequest {
  if (bytes.length === 0) throw new RequestParseError('unreadable', 'empty request');
  const { line, payload } = splitRequestLine(bytes);
  const { verb, path } = parseRequestLine(line);
  if (payload.length > maxRequestPayloadBytes) throw new RequestParseError('unreadable', 'payload exceeds limit');
  let split: SplitPayload;
  try {
    split = splitFrontmatter(payload);
  } catch (error) {
    if (error instanceof UnclosedFrontmatterError) throw new RequestParseError('malformed', error.message);
    throw error;
  }
  if (split.block !== null && split.block.length > maxRequestFrontmatterBytes) {
    throw new RequestParseError('unreadable', 'metadata block exceeds limit');
  }
  if (split.body.length > maxBodyBytes) throw new RequestParseError('unreadable', 'body exceeds limit');
  const metadata = split.block === null ? {} : parseBlock(split.block);
  return { verb, path, metadata, body: split.body };
}

/** bufio.ReadLine semantics: a trailing CR is dropped and a last line without LF is accepted. */
function splitRequestLine(bytes: Uint8Array): { line: Uint8Array; payload: Uint8Array } {
  const window = bytes.subarray(0, maxRequestLineBytes + 2);
  const newline = window.indexOf(lf);
  let line = newline < 0 ? bytes : bytes.subarray(0, newline);
  const payload = newline < 0 ? new Uint8Array(0) : bytes.subarray(newline + 1);
  if (line.at(-1) === 0x0d) line = line.subarray(0, line.length - 1);
  if (line.length > maxRequestLineBytes) throw new RequestParseError('unreadable', 'request line exceeds limit');
  return { line, payload };
}

function parseRequestLine(lineBytes: Uint8Array): { verb: Verb; path: string } {
  const line = decodeText(lineBytes, 'request line');
  const space = line.indexOf(' ');
  if (space < 0) throw new RequestParseError('malformed', 'request line has no space');
  const verb = line.slice(0, space);
  const path = line.slice(space + 1);
  if (!isVerb(verb)) throw new RequestParseError('malformed', verb === '' ? 'empty verb' : 'unknown verb');
  if (!isValidRequestPath(path)) throw new RequestParseError('malformed', 'invalid path');
  return { verb, path };
}

function parseBlock(block: Uint8Array): Metadata {
  try {
    return decodeYamlMap(decodeText(block, 'metadata block'));
  } catch (error) {
    if (error instanceof YamlMapError) throw new RequestParseError('malformed', error.message);
    throw error;
  }
}

function decodeText(bytes: Uint8Array, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new RequestParseError('malformed', `${what} is not valid UTF-8`);
  }
}

/** Frames a request for the wire. Throws on a path the server would refuse. */
export function encodeRequest(request: MarkRequest): Uint8Array {
  if (!isValidRequestPath(request.path))
    throw new TypeError(`invalid Mark request path: ${JSON.stringify(request.path)}`);
  const hasMetadata = Object.keys(request.metadata).length > 0;
  const framed = joinFrontmatter(hasMetadata ? encodeYamlMap(request.metadata) : null, request.body);
  return Buffer.concat([Buffer.from(`${request.verb} ${request.path}\n`), framed]);
}
