import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashToken } from '../../../src/protocol/token.ts';
import { formatTokenEntry } from '../../../src/protocol/tokens-entry.ts';
import { mintTokenEntry } from '../../../src/world/auth/mint-token.ts';
import { TokenSnapshot } from '../../../src/world/auth/token-snapshot.ts';
import { TokensFileError } from '../../../src/world/auth/tokens-file.ts';

describe('mintTokenEntry', () => {
  it('mints a 64-hex secret whose entry grants exactly what was asked', () => {
    const minted = mintTokenEntry({
      label: 'ci-bot',
      paths: ['/docs/**'],
      operations: ['publish'],
      expires: '2027-01-01T00:00:00Z',
    });
    assert.match(minted.rawToken, /^[0-9a-f]{64}$/);
    assert.equal(minted.hash, hashToken(minted.rawToken));
    assert.equal(
      minted.tomlEntry,
      `[tokens.ci-bot]\nhash = "${minted.hash}"\npaths = ["/docs/**"]\noperations = ["publish"]\nexpires = "2027-01-01T00:00:00Z"\n`,
    );
    assert.ok(!minted.tomlEntry.includes(minted.rawToken), 'the file holds only the hash');
    // The same bytes the broker appends when it provisions a token (one entry writer).
    assert.equal(
      `\n${minted.tomlEntry}`,
      formatTokenEntry('ci-bot', {
        hash: minted.hash,
        paths: ['/docs/**'],
        operations: ['publish'],
        expires: '2027-01-01T00:00:00Z',
      }),
    );
    const snapshot = TokenSnapshot.parse(`[tokens]\n${minted.tomlEntry}`, {
      now: () => new Date('2026-06-01T00:00:00Z'),
    });
    assert.equal(snapshot.authorize(minted.rawToken, '/docs/a/b.md', 'publish'), 'ok');
    assert.equal(snapshot.labelOf(minted.rawToken), 'ci-bot');
    assert.equal(snapshot.authorize(minted.rawToken, '/other.md', 'publish'), 'not-permitted');
  });

  it('quotes a label that is not a bare TOML key, so it round-trips', () => {
    const minted = mintTokenEntry({
      label: 'fritz "laptop"',
      paths: ['/**'],
      operations: ['read'],
      expires: new Date('2027-01-01T00:00:00Z'),
    });
    assert.match(minted.tomlEntry, /^\[tokens\."fritz \\"laptop\\""\]\n/);
    assert.match(minted.tomlEntry, /expires = "2027-01-01T00:00:00Z"/);
    assert.deepEqual(TokenSnapshot.parse(minted.tomlEntry).labels, ['fritz "laptop"']);
  });

  it('mints a fresh secret each time', () => {
    const a = mintTokenEntry({ label: 'a', paths: ['/**'], operations: ['publish'] });
    const b = mintTokenEntry({ label: 'a', paths: ['/**'], operations: ['publish'] });
    assert.notEqual(a.rawToken, b.rawToken);
  });

  it('refuses an entry that would not load', () => {
    assert.throws(() => mintTokenEntry({ label: 'bad', paths: ['/docs**'], operations: ['publish'] }), TokensFileError);
    assert.throws(
      () => mintTokenEntry({ label: 'bad', paths: ['/**'], operations: ['publish'], expires: 'tomorrow' }),
      TokensFileError,
    );
    assert.throws(() => mintTokenEntry({ label: '', paths: ['/**'], operations: ['publish'] }), RangeError);
  });

  it('refuses a path without a leading "/", which loads but would match no request path', () => {
    assert.throws(
      () => mintTokenEntry({ label: 'x', paths: ['/a/**', 'docs/**'], operations: ['publish'] }),
      (error: unknown) =>
        error instanceof TokensFileError && error.message === 'path "docs/**" must start with "/", e.g. /docs/**',
    );
  });
});
