import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerChallenge, bearerErrorBody, quotedStringContent } from '../../../src/broker/auth/bearer-challenge.ts';
import { BearerError } from '../../../src/broker/auth/bearer-error.ts';

const metadataUrl = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

describe('WWW-Authenticate challenge (RFC 6750 §3, RFC 9728 §5.1)', () => {
  it('names error, description, scope and resource_metadata as quoted strings', () => {
    const header = bearerChallenge(new BearerError('ERR_BEARER_EXPIRED', 'detail'), {
      resourceMetadataUrl: metadataUrl,
      scopes: ['mark.read', 'mark.write'],
    });
    assert.equal(
      header,
      `Bearer realm="demarkus-broker", error="invalid_token", error_description="bearer token expired", scope="mark.read mark.write", resource_metadata="${metadataUrl}"`,
    );
  });

  it('leaves out scope when none is configured', () => {
    const header = bearerChallenge(new BearerError('ERR_BEARER_MISSING', 'detail'), {
      resourceMetadataUrl: metadataUrl,
    });
    assert.doesNotMatch(header, /scope=/);
    assert.match(header, /error="invalid_request"/);
  });

  it('never puts the private detail on the wire', () => {
    const error = new BearerError('ERR_BEARER_INVALID', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED: secret');
    assert.doesNotMatch(bearerChallenge(error, { resourceMetadataUrl: metadataUrl }), /secret/);
    assert.deepEqual(bearerErrorBody(error), { error: 'invalid_token', error_description: 'invalid bearer token' });
  });
});

describe('quoted-string sanitising (hardening)', () => {
  it('escapes quotes and backslashes', () => {
    assert.equal(quotedStringContent('say "hi" \\ bye'), 'say \\"hi\\" \\\\ bye');
  });

  it('replaces CR and LF so no header can be injected', () => {
    assert.equal(quotedStringContent('a\r\nSet-Cookie: x=1'), 'a??Set-Cookie: x=1');
  });

  it('replaces non-ASCII and control characters', () => {
    assert.equal(quotedStringContent('café\u0000\t'), 'caf???');
  });

  it('sanitises a resource metadata URL with a quote in it', () => {
    const header = bearerChallenge(new BearerError('ERR_BEARER_MISSING', 'x'), { resourceMetadataUrl: 'https://h/"x' });
    assert.match(header, /resource_metadata="https:\/\/h\/\\"x"$/);
  });
});
