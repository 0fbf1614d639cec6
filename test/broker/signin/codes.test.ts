import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatUserCode,
  generateUserCode,
  normalizeUserCode,
  userCodeAlphabet,
} from '../../../src/broker/auth/user-code.ts';
import { isValidCodeChallenge, verifyS256 } from '../../../src/broker/auth/pkce.ts';
import { constantTimeEqual } from '../../../src/broker/auth/secrets.ts';

describe('user codes (RFC 8628 §6.1)', () => {
  it('draws 8 characters from the base-20 alphabet and shows them as XXXX-XXXX', () => {
    for (let i = 0; i < 200; i++) {
      const code = generateUserCode();
      assert.match(code, /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      assert.match(formatUserCode(code), /^[A-Z]{4}-[A-Z]{4}$/);
    }
    assert.equal(userCodeAlphabet.length, 20);
  });

  it('accepts what a person types: lower case, no dash, spaces', () => {
    assert.equal(normalizeUserCode('wdjb-mjht'), 'WDJBMJHT');
    assert.equal(normalizeUserCode(' WDJB MJHT '), 'WDJBMJHT');
    assert.equal(normalizeUserCode('WDJBMJHT'), 'WDJBMJHT');
  });

  it('refuses input that cannot be a code: vowels, digits, wrong length', () => {
    assert.equal(normalizeUserCode('ABCD-EFGH'), null);
    assert.equal(normalizeUserCode('BCDF-GHJ1'), null);
    assert.equal(normalizeUserCode('BCDF-GHJ'), null);
    assert.equal(normalizeUserCode(''), null);
  });
});

describe('PKCE S256 (RFC 7636)', () => {
  // RFC 7636 Appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('accepts the verifier of the RFC 7636 appendix B example', () => {
    assert.equal(verifyS256(verifier, challenge), true);
    assert.equal(isValidCodeChallenge(challenge), true);
  });

  it('refuses another verifier, a too-short one, and the challenge itself (plain)', () => {
    assert.equal(verifyS256(verifier.replace('d', 'e'), challenge), false);
    assert.equal(verifyS256('short', challenge), false);
    assert.equal(verifyS256(challenge, challenge), false);
    assert.equal(isValidCodeChallenge('not base64url!'), false);
  });
});

describe('constant-time comparison', () => {
  it('is equality, whatever the lengths', () => {
    assert.equal(constantTimeEqual('abc', 'abc'), true);
    assert.equal(constantTimeEqual('abc', 'abd'), false);
    assert.equal(constantTimeEqual('abc', 'abcd'), false);
    assert.equal(constantTimeEqual('', ''), true);
  });
});
