import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  clearCookie,
  csrfCookie,
  readCookie,
  roundTripCookie,
  setCookie,
} from '../../../src/broker/http/signin/cookies.ts';
import { CsrfGuard } from '../../../src/broker/http/signin/csrf.ts';
import { devicePage } from '../../../src/broker/http/signin/pages.ts';
import { queryParams, singleValued } from '../../../src/broker/http/signin/form-body.ts';

describe('sign-in cookies', () => {
  it('carry the __Host- prefix, Path=/, Secure, HttpOnly and SameSite over https', () => {
    const secure = { secure: true };
    assert.equal(
      setCookie(csrfCookie(secure), 'v', secure),
      '__Host-demarkus_csrf=v; Path=/; Max-Age=3600; HttpOnly; SameSite=Strict; Secure',
    );
    assert.match(
      setCookie(roundTripCookie(secure, 300), 's', secure),
      /^__Host-demarkus_signin=s; Path=\/; Max-Age=300; HttpOnly; SameSite=Lax; Secure$/,
    );
    assert.match(clearCookie(csrfCookie(secure), secure), /Max-Age=0/);
  });

  it('drop the prefixes and Secure only for insecure development', () => {
    const insecure = { secure: false };
    assert.equal(
      setCookie(csrfCookie(insecure), 'v', insecure),
      'demarkus_csrf=v; Path=/; Max-Age=3600; HttpOnly; SameSite=Strict',
    );
    assert.equal(
      setCookie(roundTripCookie(insecure, 300), 's', insecure),
      'demarkus_signin=s; Path=/; Max-Age=300; HttpOnly; SameSite=Lax',
    );
  });

  it('are read by exact name', () => {
    assert.equal(readCookie('a=1; demarkus_csrf=two; b=3', 'demarkus_csrf'), 'two');
    assert.equal(readCookie('xdemarkus_csrf=1', 'demarkus_csrf'), undefined);
    assert.equal(readCookie(undefined, 'a'), undefined);
  });
});

describe('CSRF guard', () => {
  const guard = new CsrfGuard(Buffer.alloc(32, 7), 'https://broker.example.com');
  const secret = guard.newSecret();
  const token = guard.tokenFor(secret);

  it('accepts the token of the cookie secret from our own origin', () => {
    assert.equal(guard.verify({ secret, token, origin: 'https://broker.example.com', fetchSite: 'same-origin' }), true);
    assert.equal(guard.verify({ secret, token, origin: undefined, fetchSite: undefined }), true);
  });

  it('refuses another origin, a cross-site fetch, a wrong token and a missing cookie', () => {
    assert.equal(guard.verify({ secret, token, origin: 'https://evil.example', fetchSite: undefined }), false);
    assert.equal(guard.verify({ secret, token, origin: 'null', fetchSite: undefined }), false);
    assert.equal(guard.verify({ secret, token, origin: undefined, fetchSite: 'cross-site' }), false);
    assert.equal(
      guard.verify({ secret, token: guard.tokenFor('other'), origin: undefined, fetchSite: undefined }),
      false,
    );
    assert.equal(guard.verify({ secret: undefined, token, origin: undefined, fetchSite: undefined }), false);
  });
});

describe('verification page and form parsing', () => {
  it('escapes what the query string prefills', () => {
    const html = devicePage({ userCode: '"><script>alert(1)</script>', csrf: 't' });
    assert.doesNotMatch(html, /<script>/);
    assert.match(html, /&quot;&gt;&lt;script&gt;/);
  });

  it('refuses a repeated parameter (RFC 6749 §3.1)', () => {
    assert.throws(() => singleValued(new URLSearchParams('a=1&a=2')), /repeated/);
    assert.deepEqual({ ...queryParams('/oauth/authorize?x=1&y=') }, { x: '1', y: '' });
  });
});
