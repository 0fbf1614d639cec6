import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashToken } from '../../../src/protocol/token.ts';
import { parseTokensFile, TokensFileError } from '../../../src/world/auth/tokens-file.ts';

const hashA = hashToken('secret-a');
const hashB = hashToken('secret-b');

function expectLoadError(text: string, message: RegExp, label?: string): void {
  assert.throws(
    () => parseTokensFile(text, '/etc/world/tokens.toml'),
    (err: unknown) => {
      assert.ok(err instanceof TokensFileError, 'a TokensFileError');
      assert.equal(err.code, 'ERR_TOKENS_FILE');
      assert.match(err.message, message);
      assert.equal(err.label, label);
      return true;
    },
  );
}

describe('tokens.toml loading (Go auth.LoadTokens)', () => {
  it('loads labelled tokens with paths, operations and expiry', () => {
    const entries = parseTokensFile(
      [
        '[tokens.fritz-laptop]',
        `hash = "${hashA}"`,
        'paths = ["/docs/**", "/x/*"]',
        'operations = ["publish", "read"]',
        'expires = "2026-12-31T23:59:59Z"',
        '',
        '[tokens.ci]',
        `hash = "${hashB}"`,
        'paths = ["/**"]',
        'operations = ["publish", "archive"]',
        'comment = "unknown keys are ignored"',
      ].join('\n'),
      'tokens.toml',
    );
    assert.deepEqual(
      entries.map((e) => [e.label, e.hash, e.paths, e.operations, e.expiresAt?.toISOString() ?? null]),
      [
        ['fritz-laptop', hashA, ['/docs/**', '/x/*'], ['publish', 'read'], '2026-12-31T23:59:59.000Z'],
        ['ci', hashB, ['/**'], ['publish', 'archive'], null],
      ],
    );
    assert.equal(entries[0]?.digest.length, 32);
  });

  it('accepts an empty [tokens] table and a file without one', () => {
    assert.deepEqual(parseTokensFile('[tokens]\n', 't'), []);
    assert.deepEqual(parseTokensFile('', 't'), []);
  });

  it('accepts an expiry with an offset and fractional seconds', () => {
    const [entry] = parseTokensFile(`[tokens.a]\nhash = "${hashA}"\nexpires = "2026-06-01T12:00:00.5+02:00"\n`, 't');
    assert.equal(entry?.expiresAt?.toISOString(), '2026-06-01T10:00:00.500Z');
  });

  it('names the label of a token with no hash', () => {
    expectLoadError('[tokens.nohash]\npaths = ["/**"]\n', /^token "nohash" has empty hash$/, 'nohash');
  });

  it('refuses a hash that is not sha256-<64 hex>', () => {
    expectLoadError('[tokens.short]\nhash = "sha256-abc"\n', /token "short" has invalid hash "sha256-abc"/, 'short');
    expectLoadError(`[tokens.upper]\nhash = "${hashA.toUpperCase()}"\n`, /token "upper" has invalid hash/, 'upper');
  });

  it('refuses the same hash under two labels', () => {
    expectLoadError(
      `[tokens.one]\nhash = "${hashA}"\n[tokens.two]\nhash = "${hashA}"\n`,
      /^duplicate hash for labels "one" and "two"$/,
      'two',
    );
  });

  it('refuses invalid path patterns, naming the label and the pattern (case 49)', () => {
    for (const pattern of ['/docs**', '/a/**/b/**/c', '/docs/[invalid']) {
      expectLoadError(
        `[tokens.bad]\nhash = "${hashA}"\npaths = ["/ok/*", ${JSON.stringify(pattern)}]\n`,
        new RegExp(`^token "bad" has invalid path pattern ${JSON.stringify(pattern).replace(/[[\]*\\]/g, '\\$&')}: `),
        'bad',
      );
    }
  });

  it('refuses an expiry that is not RFC 3339 (case 49)', () => {
    for (const expires of [
      'not-a-date',
      '2026-12-31',
      '2026-02-30T00:00:00Z',
      '2026-12-31T24:00:00Z',
      '2026-12-31 23:59:59Z',
    ]) {
      expectLoadError(
        `[tokens.exp]\nhash = "${hashA}"\nexpires = "${expires}"\n`,
        /token "exp" has invalid expires/,
        'exp',
      );
    }
  });

  it('refuses fields of the wrong type', () => {
    expectLoadError(
      `[tokens.p]\nhash = "${hashA}"\npaths = "/docs/*"\n`,
      /token "p" has paths that are not a list of strings/,
      'p',
    );
    expectLoadError(
      `[tokens.o]\nhash = "${hashA}"\noperations = [1]\n`,
      /token "o" has operations that are not a list/,
      'o',
    );
    expectLoadError(
      `[tokens.e]\nhash = "${hashA}"\nexpires = 2026-12-31T23:59:59Z\n`,
      /token "e" has expires that is not/,
      'e',
    );
    expectLoadError('tokens = 3\n', /\[tokens\] must be a table/);
  });

  it('reads the SPEC §11.8 inline form as tokens without a hash, as the Go server does', () => {
    expectLoadError(`[tokens]\n"${hashA}" = { paths = ["/**"], operations = ["publish"] }\n`, /has empty hash/, hashA);
  });

  it('reports a TOML syntax error with the file name', () => {
    expectLoadError('[tokens.a\nhash = 1\n', /^load tokens file "\/etc\/world\/tokens.toml": /);
  });
});
