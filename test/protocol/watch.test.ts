import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  encodeWatchBlock,
  formatCursor,
  maxWatchBlockBytes,
  parseCursor,
  parseEvent,
  WatchDecoder,
  WatchFormatError,
} from '../../src/protocol/watch.ts';

const goldenDir = join(import.meta.dirname, '../golden/watch');
/** The stream blocks (refusals are ordinary responses, checked by the world's tests). */
const blockGoldens = readdirSync(goldenDir).filter((name) => /^0[1-7]-.*\.golden$/.test(name));

function golden(name: string): Buffer {
  return readFileSync(join(goldenDir, name));
}

describe('WATCH blocks (Mark SPEC §6.8) against the goldens', () => {
  it('has the stream goldens', () => assert.equal(blockGoldens.length, 7));

  for (const name of blockGoldens) {
    it(`decodes ${name} fed one byte at a time and encodes it back byte for byte`, () => {
      const bytes = golden(name);
      const decoder = new WatchDecoder();
      const blocks = [];
      for (const byte of bytes) {
        decoder.push(Uint8Array.of(byte));
        for (let block = decoder.next(); block !== null; block = decoder.next()) blocks.push(block);
      }
      assert.equal(blocks.length, 1);
      assert.ok(decoder.atBoundary);
      assert.deepEqual(Buffer.from(encodeWatchBlock(blocks[0]!)), bytes);
    });
  }

  it('reads an event with its cursor, path, version, op, hash and agent', () => {
    const decoder = new WatchDecoder();
    decoder.push(golden('02-event-publish.golden'));
    const event = parseEvent(decoder.next()!);
    assert.equal(formatCursor(event.cursor), '0a1b2c3d4e5f:1');
    assert.equal(event.path, '/docs/a.md');
    assert.equal(event.version, 1);
    assert.equal(event.op, 'publish');
    assert.equal(event.agent, 'alice@example.com');
    assert.match(event.hash!, /^sha256-[0-9a-f]{64}$/);
  });

  it('keeps unknown keys and ops instead of failing the stream', () => {
    const event = parseEvent({
      status: '',
      metadata: { cursor: 'e:9', path: '/a.md', version: '3', op: 'rename', 'new-key': 'x' },
    });
    assert.equal(event.op, 'rename');
  });

  it('refuses events that break the grammar', () => {
    const base = { cursor: 'e:1', path: '/a.md', version: '1', op: 'publish' };
    for (const broken of [
      { ...base, cursor: 'e:01' },
      { ...base, path: 'a.md' },
      { ...base, version: '0' },
      { ...base, version: '1.5' },
      { ...base, op: '' },
      { ...base, hash: 'sha256-XYZ' },
    ])
      assert.throws(() => parseEvent({ status: '', metadata: broken }), WatchFormatError, JSON.stringify(broken));
    assert.throws(() => parseEvent({ status: 'ok', metadata: base }), WatchFormatError);
  });
});

describe('WATCH cursors', () => {
  it('round-trip <epoch>:<seq> byte for byte', () => {
    for (const text of ['e:0', 'a.b_c-D9:18446744073709551615', `${'x'.repeat(64)}:7`])
      assert.equal(formatCursor(parseCursor(text)!), text);
  });

  it('refuse leading zeros, signs, empty or long epochs, bad characters and seq past 2^64-1', () => {
    for (const text of ['e:01', 'e:+1', ':1', `${'x'.repeat(65)}:1`, 'e!:1', 'e:18446744073709551616', 'e', 'e:'])
      assert.equal(parseCursor(text), null, text);
  });
});

describe('WATCH decoder bounds', () => {
  it('refuses a block past 8192 bytes before holding more of it', () => {
    const decoder = new WatchDecoder();
    decoder.push(Buffer.from(`---\nkey: ${'v'.repeat(maxWatchBlockBytes)}`));
    assert.throws(() => decoder.next(), WatchFormatError);
  });

  it('refuses a stream that does not open with a fence', () => {
    const decoder = new WatchDecoder();
    decoder.push(Buffer.from('status: ok\n'));
    assert.throws(() => decoder.next(), WatchFormatError);
  });

  it('refuses to encode a block past the bound or with a key outside the grammar', () => {
    assert.throws(() => encodeWatchBlock({ status: 'ok', metadata: { big: 'v'.repeat(maxWatchBlockBytes) } }));
    assert.throws(() => encodeWatchBlock({ status: 'ok', metadata: { Bad: 'x' } }), WatchFormatError);
  });

  it('leaves what follows a refusal block unread', () => {
    const decoder = new WatchDecoder();
    decoder.push(golden('09-refused-unsupported.golden'));
    assert.equal(decoder.next()!.status, 'bad-request');
    assert.ok(!decoder.atBoundary);
  });
});
