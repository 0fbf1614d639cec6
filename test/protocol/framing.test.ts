import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRequest, parseRequest, RequestParseError } from '../../src/protocol/request.ts';
import { encodeResponse, errorResponse, parseResponse } from '../../src/protocol/response.ts';
import { maxBodyBytes, maxRequestLineBytes } from '../../src/protocol/limits.ts';

const bytes = (text: string) => Buffer.from(text);
const text = (data: Uint8Array) => Buffer.from(data).toString();

function parseKind(input: Uint8Array): string {
  try {
    parseRequest(input);
    return 'ok';
  } catch (error) {
    assert.ok(error instanceof RequestParseError);
    return error.kind;
  }
}

describe('request framing (Mark SPEC §4, Go protocol/request.go)', () => {
  it('splits the request line at the first space, so paths may contain spaces', () => {
    const request = parseRequest(bytes('PUBLISH /docs/sub/c d.md\n---\nexpected-version: "0"\n---\n# Gamma\n'));
    assert.equal(request.verb, 'PUBLISH');
    assert.equal(request.path, '/docs/sub/c d.md');
    assert.deepEqual(request.metadata, { 'expected-version': '0' });
    assert.equal(text(request.body), '# Gamma\n');
  });

  it('reads every scalar as its text and an empty value as ""', () => {
    const request = parseRequest(
      bytes("LOOKUP /\n---\nlimit: 10\ninclude-archived: true\nquery: '*'\nempty:\nnull-ish: ~\n---\n"),
    );
    assert.deepEqual(request.metadata, {
      limit: '10',
      'include-archived': 'true',
      query: '*',
      empty: '',
      'null-ish': '',
    });
  });

  it('tolerates a trailing CR and a last line without LF', () => {
    assert.equal(parseRequest(bytes('FETCH /a.md\r\n')).path, '/a.md');
    assert.equal(parseRequest(bytes('FETCH /a.md')).path, '/a.md');
  });

  it('accepts a block closed at end of stream with an empty body', () => {
    const request = parseRequest(bytes('FETCH /a.md\n---\nauth: x\n---'));
    assert.deepEqual(request.metadata, { auth: 'x' });
    assert.equal(request.body.length, 0);
  });

  it('treats ---\\n\\n---\\n as an empty block and keeps a body that starts with a fence', () => {
    const request = parseRequest(bytes('PUBLISH /a.md\n---\n\n---\n---\nnot: meta\n---\n'));
    assert.deepEqual(request.metadata, {});
    assert.equal(text(request.body), '---\nnot: meta\n---\n');
  });

  const malformed: Array<[string, string]> = [
    ['no space in the line', 'FETCH\n'],
    ['unknown verb', 'DELETE /a.md\n'],
    ['lower-case verb', 'fetch /a.md\n'],
    ['empty verb', ' /a.md\n'],
    ['relative path', 'FETCH a.md\n'],
    ['control character in path', 'FETCH /a\u0001.md\n'],
    ['unclosed frontmatter', 'FETCH /a.md\n---\nkey: v\n'],
    ['metadata not a map', 'FETCH /a.md\n---\n- a\n- b\n---\n'],
    ['nested map value', 'FETCH /a.md\n---\nkey:\n  nested: v\n---\n'],
    ['bare * is a YAML alias', 'LOOKUP /\n---\nquery: *\n---\n'],
    ['duplicate keys', 'FETCH /a.md\n---\na: 1\na: 2\n---\n'],
  ];
  for (const [name, input] of malformed) {
    it(`rejects ${name} as malformed (bad-request)`, () => assert.equal(parseKind(bytes(input)), 'malformed'));
  }

  it('rejects invalid UTF-8 in the metadata block as malformed', () => {
    const input = Buffer.concat([bytes('FETCH /a.md\n---\nk: '), Buffer.from([0xff, 0xfe]), bytes('\n---\n')]);
    assert.equal(parseKind(input), 'malformed');
  });

  it('answers size limits and empty requests as unreadable (server-error)', () => {
    assert.equal(parseKind(new Uint8Array(0)), 'unreadable');
    assert.equal(parseKind(bytes(`FETCH /${'a'.repeat(maxRequestLineBytes)}`)), 'unreadable');
    assert.equal(
      parseKind(Buffer.concat([bytes('PUBLISH /a.md\n'), Buffer.alloc(maxBodyBytes + 1, 0x61)])),
      'unreadable',
    );
    const bigBlock = `---\nk: ${'v'.repeat(70_000)}\n---\n`;
    assert.equal(parseKind(bytes(`FETCH /a.md\n${bigBlock}`)), 'unreadable');
  });

  it('accepts a body of exactly the limit', () => {
    assert.equal(parseKind(Buffer.concat([bytes('PUBLISH /a.md\n'), Buffer.alloc(maxBodyBytes, 0x61)])), 'ok');
  });

  it('encodes metadata sorted, and writes the empty block when a bare body starts with a fence', () => {
    const encoded = encodeRequest({
      verb: 'PUBLISH',
      path: '/a.md',
      metadata: { 'expected-version': '0', auth: 't' },
      body: bytes('# A\n'),
    });
    assert.equal(text(encoded), 'PUBLISH /a.md\n---\nauth: t\nexpected-version: "0"\n---\n# A\n');
    const fenced = encodeRequest({ verb: 'PUBLISH', path: '/a.md', metadata: {}, body: bytes('---\nx\n') });
    assert.equal(text(fenced), 'PUBLISH /a.md\n---\n\n---\n---\nx\n');
    assert.equal(text(parseRequest(fenced).body), '---\nx\n');
  });

  it('refuses to encode a path the server would reject', () => {
    assert.throws(
      () => encodeRequest({ verb: 'FETCH', path: 'a\nb', metadata: {}, body: new Uint8Array() }),
      TypeError,
    );
  });
});

describe('response framing (Mark SPEC §5, Go protocol/response.go)', () => {
  it('puts status in its sorted position and quotes non-string-looking values', () => {
    const encoded = encodeResponse({
      status: 'created',
      metadata: { version: '1', modified: '2026-01-01T00:00:00Z' },
      body: new Uint8Array(),
    });
    assert.equal(text(encoded), '---\nmodified: "2026-01-01T00:00:00Z"\nstatus: created\nversion: "1"\n---\n');
  });

  it('writes not-modified as exactly one status line', () => {
    assert.equal(
      text(encodeResponse({ status: 'not-modified', metadata: {}, body: new Uint8Array() })),
      '---\nstatus: not-modified\n---\n',
    );
  });

  it('writes error bodies with a leading blank line and a title from the status', () => {
    const encoded = encodeResponse(errorResponse('not-found', '/docs/missing.md not found'));
    assert.equal(text(encoded), '---\nstatus: not-found\n---\n\n# Not found\n\n/docs/missing.md not found\n');
  });

  it('parses every value as a string and keeps unknown keys and statuses', () => {
    const parsed = parseResponse(
      bytes('---\ncomplete: "true"\nentries: 3\nfuture-key: x\nstatus: brand-new\n---\nbody'),
    );
    assert.equal(parsed.status, 'brand-new');
    assert.deepEqual(parsed.metadata, { complete: 'true', entries: '3', 'future-key': 'x' });
    assert.equal(text(parsed.body), 'body');
  });

  it('reads a response without a fence as all body with an empty status', () => {
    const parsed = parseResponse(bytes('hello'));
    assert.equal(parsed.status, '');
    assert.equal(text(parsed.body), 'hello');
  });

  it('round-trips metadata that needs quoting', () => {
    const metadata = {
      title: 'Design: auth',
      note: "it's",
      yes: 'yes',
      tab: 'a\tb',
      dash: '- x',
      hash: 'a #b',
      emoji: 'ok 🎉',
    };
    const parsed = parseResponse(encodeResponse({ status: 'ok', metadata, body: new Uint8Array() }));
    assert.deepEqual(parsed.metadata, metadata);
  });
});
