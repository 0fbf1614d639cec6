import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatToolResult, formatToolResultWith } from '../../../src/broker/mcp/format-tool-result.ts';
import { response } from './helpers/memory-gateway.ts';

describe('formatToolResult (Go broker)', () => {
  it('writes the status, the named keys in the given order, the rest in byte order, a blank line and the body', () => {
    const answer = response(
      'ok',
      { zeta: 'z', etag: 'e1', 'content-hash': 'sha256-x', version: '3', modified: '2026-01-01T00:00:00Z', alpha: 'a' },
      '# Doc\n',
    );
    assert.equal(
      formatToolResult(answer, ['version', 'modified', 'etag']),
      'status: ok\nversion: 3\nmodified: 2026-01-01T00:00:00Z\netag: e1\nalpha: a\ncontent-hash: sha256-x\nzeta: z\n\n# Doc\n',
    );
  });

  it('skips named keys that are absent and writes no blank line for an empty body', () => {
    assert.equal(
      formatToolResult(response('created', { version: '1' }), ['version', 'modified', 'server-version']),
      'status: created\nversion: 1\n',
    );
    assert.equal(formatToolResult(response('not-modified'), ['version']), 'status: not-modified\n');
  });

  it('keeps a world error body verbatim after the blank line', () => {
    const answer = response('not-found', {}, '\n# Not found\n\n/a.md not found\n');
    assert.equal(
      formatToolResult(answer, ['version', 'modified', 'etag']),
      'status: not-found\n\n\n# Not found\n\n/a.md not found\n',
    );
  });

  it('orders remaining keys by bytes, not by locale', () => {
    assert.equal(
      formatToolResult(response('ok', { b: '2', B: '1', 'a-b': '3', a1: '4' }), []),
      'status: ok\nB: 1\na-b: 3\na1: 4\nb: 2\n',
    );
  });
});

describe('formatToolResultWith', () => {
  it('merges extra keys over a copy of the metadata and swaps the body', () => {
    const answer = response('ok', { version: '2', etag: 'e' }, 'original');
    const text = formatToolResultWith(answer, 'outline', { mode: 'outline', etag: 'override' }, [
      'version',
      'modified',
      'etag',
    ]);
    assert.equal(text, 'status: ok\nversion: 2\netag: override\nmode: outline\n\noutline');
    assert.deepEqual(answer.metadata, { version: '2', etag: 'e' });
    assert.equal(Buffer.from(answer.body).toString(), 'original');
  });

  it('writes no body section when the replacement body is empty', () => {
    assert.equal(
      formatToolResultWith(response('ok', {}, 'x'), '', { size: '1 bytes, 1 lines' }, []),
      'status: ok\nsize: 1 bytes, 1 lines\n',
    );
  });
});
