/**
 * The LIST continuation cursor (Go handler/list.go), opaque to clients:
 * base64url without padding of
 *   [0x01][flags: 0x01 = include-archived][uint16 BE len(dir)][dir][last name]
 * e.g. `AQAABS9kb2NzYS5tZA` = 01 00 0005 "/docs" "a.md".
 */
import { errorWithCode } from '../../errors/coded-error.ts';

const cursorVersion = 0x01;
const includeArchivedFlag = 0x01;
/** A cursor holds one path and one name; anything longer was not made by us. */
const maxCursorBytes = 2 + 2 + 4096 + 4096;

export type ListCursor = { dir: string; includeArchived: boolean; after: string };

export class ListCursorError extends errorWithCode('ERR_LIST_CURSOR') {}

export function encodeListCursor(cursor: ListCursor): string {
  const dir = Buffer.from(cursor.dir);
  const header = Buffer.from([
    cursorVersion,
    cursor.includeArchived ? includeArchivedFlag : 0,
    dir.length >> 8,
    dir.length & 0xff,
  ]);
  return Buffer.concat([header, dir, Buffer.from(cursor.after)]).toString('base64url');
}

/** Decodes and checks a cursor against the request it came back with. */
export function decodeListCursor(text: string, expected: { dir: string; includeArchived: boolean }): string {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new ListCursorError('invalid LIST cursor');
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length > maxCursorBytes) throw new ListCursorError('LIST cursor exceeds limit');
  if (bytes.length < 4) throw new ListCursorError('invalid LIST cursor');
  if (bytes[0] !== cursorVersion || (bytes[1]! & ~includeArchivedFlag) !== 0)
    throw new ListCursorError('unsupported LIST cursor');
  const dirLength = bytes.readUInt16BE(2);
  if (bytes.length < 4 + dirLength) throw new ListCursorError('invalid LIST cursor');
  const dir = bytes.subarray(4, 4 + dirLength).toString();
  const includeArchived = (bytes[1]! & includeArchivedFlag) !== 0;
  if (dir !== expected.dir || includeArchived !== expected.includeArchived) {
    throw new ListCursorError('LIST cursor does not match this request');
  }
  return bytes.subarray(4 + dirLength).toString();
}
