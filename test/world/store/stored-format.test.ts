import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  contentHash,
  extractBody,
  extractMetadata,
  extractPreviousHash,
  inspectStoredVersion,
  isStoreError,
  joinContent,
  serializeVersion,
  storedEtag,
} from '../../../src/world/store/index.ts';
import { bytes, text } from './support.ts';

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

// Go storetest/wiregolden.go: the golden scenario's stored bytes, etags and hashes.
const meta = { importance: '0.7', tags: 'alpha, wire', type: 'Note' };
const body1 = bytes('# Alpha\n\nFirst body.\n');
const body2 = bytes('# Alpha\n\nSecond body.\n\n## Details\n\nSee [beta](b.md).\n');
const body3 = bytes('# Alpha\n\nSecond body.\n\n## Details\n\nSee [beta](b.md).\n\n## Appended\n\nMore.\n');
const v1Text =
  '---\nversion: 1\narchived: false\nmeta.importance: 0.7\ntags: [alpha, wire]\ntype: Note\n---\n# Alpha\n\nFirst body.\n';

describe('stored version bytes (Mark SPEC §9.4; Go storetest/wiregolden.go)', () => {
  const v1 = serializeVersion(1, null, body1, meta);
  const v2 = serializeVersion(2, v1, body2, meta);
  const v3 = serializeVersion(3, v2, body3, meta);

  it('writes v1 exactly as the Go store does', () => {
    assert.equal(text(v1), v1Text);
    assert.equal(storedEtag(v1), '94e05cf0cc64c6e22e485312b29407d06ab5a85989f6b2ce566638405b4ad0ee');
    assert.equal(contentHash(body1), 'sha256-534b0f02677fcd121e7c4be275e533709b0788060ccf2da54950441c698c527a');
  });

  it('chains v2 to the complete bytes of v1', () => {
    assert.equal(
      text(v2),
      `---\nversion: 2\narchived: false\nprevious-hash: sha256-${sha256(v1)}\nmeta.importance: 0.7\ntags: [alpha, wire]\ntype: Note\n---\n${text(body2)}`,
    );
    assert.equal(sha256(v2), 'ced1c087a076403ee1ce2c039ade8e6e8f4eca52196852530f6280b76622ba84');
  });

  it('gives v3 the golden etag and content hash', () => {
    assert.equal(extractPreviousHash(v3), 'sha256-ced1c087a076403ee1ce2c039ade8e6e8f4eca52196852530f6280b76622ba84');
    assert.equal(storedEtag(v3), '693067c46c892c9ff8b035c8b3848fb3a8b74a1f5787f5bc960688ce678573dd');
    assert.equal(
      contentHash(extractBody(v3)),
      'sha256-050018a246d303b7fd8806eb84e88535b6cc8510e829715f87b7337158e05919',
    );
  });

  it('writes a document without metadata as bare operational fields (case 25)', () => {
    const stored = serializeVersion(1, null, bytes('# Hello World\n'), {});
    assert.equal(text(stored), '---\nversion: 1\narchived: false\n---\n# Hello World\n');
  });

  it('sorts publisher keys by bare key and prefixes non-OKF keys with meta.', () => {
    const stored = serializeVersion(1, null, bytes('x'), {
      zeta: '1',
      agent: 'claude',
      title: 'T',
      'rel-supersedes': '/a.md',
      description: 'd',
    });
    assert.equal(
      text(stored),
      '---\nversion: 1\narchived: false\nmeta.agent: claude\ndescription: d\nmeta.rel-supersedes: /a.md\ntitle: T\nmeta.zeta: 1\n---\nx',
    );
  });

  it('refuses v2 without the bytes of v1, and version numbers out of range', () => {
    assert.throws(() => serializeVersion(2, null, body2, {}), RangeError);
    assert.throws(() => serializeVersion(0, null, body1, {}), RangeError);
    assert.throws(() => serializeVersion(2 ** 31, bytes('x'), body1, {}), RangeError);
  });

  it('reads metadata back bare, tags as a,b', () => {
    assert.deepEqual(extractMetadata(v3), { importance: '0.7', tags: 'alpha,wire', type: 'Note' });
    assert.deepEqual(text(extractBody(v3)), text(body3));
  });

  it('still reads an old meta.tags and never returns store fields', () => {
    const legacy = bytes(
      '---\nversion: 1\narchived: false\nmeta.archived: true\nmeta.tags: a, b\nunknown: x\n---\nbody',
    );
    assert.deepEqual(extractMetadata(legacy), { tags: 'a, b' });
  });
});

describe('strict stored-version reader (InspectStoredVersion)', () => {
  const v1 = serializeVersion(1, null, body1, meta);
  const v2 = serializeVersion(2, v1, body2, meta);

  it('accepts what the store writes', () => {
    assert.deepEqual(inspectStoredVersion(v1), { version: 1, archived: false, previousHash: null });
    assert.deepEqual(inspectStoredVersion(v2), { version: 2, archived: false, previousHash: `sha256-${sha256(v1)}` });
  });

  const broken: [name: string, stored: string][] = [
    ['no frontmatter', '# just a body\n'],
    ['an unclosed block', '---\nversion: 1\narchived: false\n'],
    ['a block closed at end of input', '---\nversion: 1\narchived: false\n---'],
    ['version not on line 1', '---\narchived: false\nversion: 1\n---\nx'],
    ['a non-canonical version', '---\nversion: 01\narchived: false\n---\nx'],
    ['version 0', '---\nversion: 0\narchived: false\n---\nx'],
    ['a bad archived flag', '---\nversion: 1\narchived: yes\n---\nx'],
    ['v2 without previous-hash', '---\nversion: 2\narchived: false\nmeta.a: b\n---\nx'],
    ['a malformed previous-hash', '---\nversion: 2\narchived: false\nprevious-hash: sha256-abc\n---\nx'],
    ['unsorted publisher fields', '---\nversion: 1\narchived: false\ntype: Note\nmeta.importance: 0.7\n---\nx'],
    ['a duplicate publisher field', '---\nversion: 1\narchived: false\ntype: A\ntype: B\n---\nx'],
    ['an unknown bare field', '---\nversion: 1\narchived: false\nauthor: me\n---\nx'],
    ['a meta. alias of a store field', '---\nversion: 1\narchived: false\nmeta.version: 3\n---\nx'],
    ['a field without ": "', '---\nversion: 1\narchived: false\ntype\n---\nx'],
    ['a bad retention value', '---\nversion: 1\narchived: false\nmeta.retention: zero\n---\nx'],
  ];
  for (const [name, stored] of broken) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => inspectStoredVersion(bytes(stored)),
        (err: unknown) => isStoreError(err, 'ERR_INTEGRITY'),
      );
    });
  }

  it('refuses a block that is not valid UTF-8', () => {
    const stored = Buffer.concat([
      bytes('---\nversion: 1\narchived: false\ntitle: '),
      Buffer.from([0xff]),
      bytes('\n---\nx'),
    ]);
    assert.throws(
      () => inspectStoredVersion(stored),
      (err: unknown) => isStoreError(err, 'ERR_INTEGRITY'),
    );
  });
});

describe('JoinContent (Mark SPEC §6.6)', () => {
  it('adds a newline only when the existing body lacks one', () => {
    assert.equal(text(joinContent(bytes('a\n'), bytes('\nb\n'), 100) ?? bytes('?')), 'a\n\nb\n');
    assert.equal(text(joinContent(bytes('a'), bytes('b'), 100) ?? bytes('?')), 'a\nb');
    assert.equal(text(joinContent(bytes(''), bytes('b'), 100) ?? bytes('?')), 'b');
  });

  it('answers null past the size limit, counting the added newline', () => {
    assert.equal(joinContent(bytes('aaaa'), bytes('bbbbb'), 10)?.length, 10);
    assert.equal(joinContent(bytes('aaaa'), bytes('bbbbbb'), 10), null);
    assert.equal(joinContent(bytes('aaa\n'), bytes('bbbbbb'), 10)?.length, 10);
  });
});
