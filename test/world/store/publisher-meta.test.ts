import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyOkfTypeDefault,
  extractPublisherMeta,
  isStoreError,
  metaEqual,
  normalizeMetadata,
  parseRetention,
  prepareAppendMeta,
  validateMeta,
} from '../../../src/world/store/index.ts';

function refusal(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isStoreError(err, 'ERR_INVALID_METADATA'), 'an ERR_INVALID_METADATA StoreError');
    assert.equal(err.message, message);
    return true;
  });
}

describe('publisher metadata extraction (Go handler.extractPublisherMeta)', () => {
  it('keeps every key but the control keys', () => {
    const meta = extractPublisherMeta({
      auth: 'T',
      'expected-version': '0',
      'if-none-match': 'x',
      'if-modified-since': 'y',
      tags: 'a',
      query: 'q',
    });
    assert.deepEqual(meta, { tags: 'a', query: 'q' });
  });

  it('refuses a reserved key', () => {
    refusal(() => extractPublisherMeta({ version: '3' }), 'metadata key "version" is reserved');
    refusal(() => extractPublisherMeta({ 'chain-valid': 'true' }), 'metadata key "chain-valid" is reserved');
  });

  it('leaves previous-hash to the store check, which names it as the store reserves it', () => {
    const meta = extractPublisherMeta({ 'previous-hash': 'sha256-x' });
    refusal(() => validateMeta(meta), 'invalid publisher metadata: key "previous-hash" is reserved by the store');
  });

  it('refuses keys outside [a-z0-9-] and values with newlines', () => {
    refusal(() => extractPublisherMeta({ Title: 'x' }), 'metadata key "Title" contains invalid characters');
    refusal(() => extractPublisherMeta({ a_b: 'x' }), 'metadata key "a_b" contains invalid characters');
    refusal(() => extractPublisherMeta({ title: 'a\nb' }), 'metadata value for key "title" contains newlines');
    refusal(() => extractPublisherMeta({ title: 'a\rb' }), 'metadata value for key "title" contains newlines');
  });

  it('refuses more than 50 keys but accepts 50', () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    assert.equal(Object.keys(extractPublisherMeta(fifty)).length, 50);
    refusal(() => extractPublisherMeta({ ...fifty, k50: 'v' }), 'too many metadata keys (max 50)');
  });

  it('counts tags in their stored list form against the 1024-byte limit', () => {
    // key "title" (5) + 1019 bytes = 1024: at the limit.
    assert.doesNotThrow(() => extractPublisherMeta({ title: 'x'.repeat(1019) }));
    refusal(() => extractPublisherMeta({ title: 'x'.repeat(1020) }), 'metadata too large (max 1024 bytes)');
    // 256 tags "ab": 767 bytes as sent, but "[ab, ab, …]" stores 1024, plus the key exceeds it.
    const tags = Array.from({ length: 256 }, () => 'ab').join(',');
    assert.ok(Buffer.byteLength(tags) + 'tags'.length < 1024);
    refusal(() => extractPublisherMeta({ tags }), 'metadata too large (max 1024 bytes)');
  });
});

describe('store metadata validation (storefmt.ValidateMeta)', () => {
  it('accepts a positive integer retention and refuses anything else', () => {
    assert.doesNotThrow(() => validateMeta({ retention: '3' }));
    for (const bad of ['0', '-1', '1.5', 'abc', '']) {
      refusal(
        () => validateMeta({ retention: bad }),
        `invalid publisher metadata: key "retention" must be a positive integer, got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('reads retention as Go Atoi does', () => {
    assert.deepEqual(['3', '+3', '007', '0', 'x', '9223372036854775808'].map(parseRetention), [
      3,
      3,
      7,
      null,
      null,
      null,
    ]);
  });

  it('refuses the store fields with the store message', () => {
    refusal(
      () => validateMeta({ archived: 'true' }),
      'invalid publisher metadata: key "archived" is reserved by the store',
    );
  });
});

describe('metadata normalisation', () => {
  it('types an untyped document as Document, except index.md and log.md (Go storefmt.ApplyOKFTypeDefault)', () => {
    assert.deepEqual(applyOkfTypeDefault('/docs/a.md', { title: 'A' }), { title: 'A', type: 'Document' });
    assert.deepEqual(applyOkfTypeDefault('/docs/a.md', { type: '  ' }), { type: 'Document' });
    assert.deepEqual(applyOkfTypeDefault('/docs/a.md', { type: 'Note' }), { type: 'Note' });
    assert.deepEqual(applyOkfTypeDefault('/docs/index.md', {}), {});
    assert.deepEqual(applyOkfTypeDefault('/log.md', {}), {});
  });

  it('normalizes tags to their stored spelling so the no-op check compares like with like', () => {
    assert.deepEqual(normalizeMetadata({ tags: ' alpha , , wire ' }), { tags: 'alpha,wire' });
    assert.ok(metaEqual({ tags: 'alpha,wire' }, normalizeMetadata({ tags: 'alpha, wire' })));
    assert.ok(!metaEqual({ tags: 'alpha' }, { tags: 'alpha', type: 'Document' }));
  });

  it('merges an append over the base without inheriting retention (Mark SPEC §6.6)', () => {
    const base = { tags: 'rbac,go', importance: '0.9', retention: '2', type: 'Note' };
    assert.deepEqual(prepareAppendMeta('/auth.md', base, { agent: 'claude', importance: '0.5' }), {
      tags: 'rbac,go',
      importance: '0.5',
      type: 'Note',
      agent: 'claude',
    });
    assert.deepEqual(prepareAppendMeta('/auth.md', {}, {}), { type: 'Document' });
    assert.deepEqual(prepareAppendMeta('/a.md', { retention: '2' }, { retention: '5' }).retention, '5');
  });
});
