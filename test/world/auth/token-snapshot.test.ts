import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashToken } from '../../../src/protocol/token.ts';
import { authorizeRead, isUnauthenticated, TokenSnapshot } from '../../../src/world/auth/token-snapshot.ts';

const readSecret = 'read-secret';
const writeSecret = 'write-secret';
const expiredSecret = 'expired-secret';
const pinnedNow = new Date('2026-01-01T00:00:00Z');

const snapshot = TokenSnapshot.parse(
  [
    '[tokens.reader]',
    `hash = "${hashToken(readSecret)}"`,
    'paths = ["/private/**", "/team/"]',
    'operations = ["read"]',
    '[tokens.writer]',
    `hash = "${hashToken(writeSecret)}"`,
    'paths = ["/**"]',
    'operations = ["publish"]',
    '[tokens.old-reader]',
    `hash = "${hashToken(expiredSecret)}"`,
    'paths = ["/private/**"]',
    'operations = ["read"]',
    'expires = "2025-12-31T23:59:59Z"',
  ].join('\n'),
  { now: () => pinnedNow },
);

describe('authorizeRead (Go auth.AuthorizeRead)', () => {
  const cases: [name: string, token: string, path: string, want: string][] = [
    ['a public path needs no token', '', '/docs/a.md', 'ok'],
    ['a public path ignores a bad token', 'nope', '/docs/a.md', 'ok'],
    ['a protected path without a token is no-token', '', '/private/a.md', 'no-token'],
    ['a protected path with an unknown token is invalid-token', 'nope', '/private/a.md', 'invalid-token'],
    ['a protected path with a publish-only token is not-permitted', writeSecret, '/private/a.md', 'not-permitted'],
    ['a protected path with its read token is allowed', readSecret, '/private/a.md', 'ok'],
    ['a directory pattern grants the bare directory name', readSecret, '/team', 'ok'],
    ['a directory pattern protects the bare directory name', '', '/team', 'no-token'],
    ['the agent manifest is always public', '', '/.well-known/agent-manifest.md', 'ok'],
    ['an expired read token is expired', expiredSecret, '/private/a.md', 'expired'],
  ];
  for (const [name, token, path, want] of cases) {
    it(`answers ${want}: ${name}`, () => {
      assert.equal(snapshot.authorizeRead(token, path), want);
    });
  }

  it('treats an absent auth value like an empty one', () => {
    assert.equal(snapshot.authorizeRead(undefined, '/private/a.md'), 'no-token');
    assert.equal(snapshot.authorize(undefined, '/a.md', 'publish'), 'no-token');
  });

  it('treats every read as public when no tokens are configured', () => {
    assert.equal(authorizeRead(null, '', '/private/a.md'), 'ok');
    assert.equal(authorizeRead(snapshot, '', '/private/a.md'), 'no-token');
  });

  it('maps missing, unknown and expired tokens to unauthorized and the rest to not-permitted', () => {
    assert.deepEqual(
      (['no-token', 'invalid-token', 'expired', 'not-permitted', 'ok'] as const).map(isUnauthenticated),
      [true, true, true, false, false],
    );
  });
});

describe('authorize for writes (conformance case 37)', () => {
  const docsWriter = 'docs-writer';
  const readOnly = 'read-only';
  const writers = TokenSnapshot.parse(
    [
      '[tokens.docs]',
      `hash = "${hashToken(docsWriter)}"`,
      'paths = ["/docs/*"]',
      'operations = ["publish"]',
      '[tokens.reader]',
      `hash = "${hashToken(readOnly)}"`,
      'paths = ["/**"]',
      'operations = ["read"]',
      '[tokens.until]',
      `hash = "${hashToken('until')}"`,
      'paths = ["/**"]',
      'operations = ["publish"]',
      'expires = "2026-01-01T00:00:00Z"',
    ].join('\n'),
    { now: () => pinnedNow },
  );

  it('answers no-token without auth and invalid-token for a wrong secret', () => {
    assert.equal(writers.authorize('', '/docs/test.md', 'publish'), 'no-token');
    assert.equal(writers.authorize('wrong-secret', '/docs/test.md', 'publish'), 'invalid-token');
  });

  it('answers not-permitted outside the token paths and for a token without publish', () => {
    assert.equal(writers.authorize(docsWriter, '/private/secret.md', 'publish'), 'not-permitted');
    assert.equal(writers.authorize(docsWriter, '/docs/sub/test.md', 'publish'), 'not-permitted');
    assert.equal(writers.authorize(readOnly, '/docs/test.md', 'publish'), 'not-permitted');
  });

  it('allows the token on its own paths, and names its label for the audit log', () => {
    assert.equal(writers.authorize(docsWriter, '/docs/test.md', 'publish'), 'ok');
    assert.equal(writers.labelOf(docsWriter), 'docs');
    assert.equal(writers.labelOf('wrong-secret'), null);
    assert.equal(writers.labelOf(undefined), null);
  });

  it('keeps a token valid at the instant it expires and refuses it just after', () => {
    assert.equal(writers.authorize('until', '/a.md', 'publish'), 'ok');
    const later = TokenSnapshot.parse(
      `[tokens.until]\nhash = "${hashToken('until')}"\npaths = ["/**"]\noperations = ["publish"]\nexpires = "2026-01-01T00:00:00Z"\n`,
      {
        now: () => new Date(pinnedNow.getTime() + 1),
      },
    );
    assert.equal(later.authorize('until', '/a.md', 'publish'), 'expired');
  });

  it('lists labels in file order without exposing hashes', () => {
    assert.deepEqual(writers.labels, ['docs', 'reader', 'until']);
    assert.equal(writers.size, 3);
  });
});
