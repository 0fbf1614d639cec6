import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { protectedResource } from '../../../src/broker/http/protected-resource.ts';

describe('protected-resource identity (RFC 9728 §3.1, §3.3)', () => {
  it('names <publicUrl>/mcp as the resource and the path-inserted metadata URL', () => {
    const pr = protectedResource({
      publicUrl: 'https://mcp.example.com/',
      authorizationServers: ['https://broker.example.com'],
    });
    assert.equal(pr.resource, 'https://mcp.example.com/mcp');
    assert.equal(pr.metadataUrl, 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    assert.deepEqual(pr.metadataPaths, [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]);
    assert.deepEqual(pr.document, {
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://broker.example.com'],
      bearer_methods_supported: ['header'],
    });
  });

  it('keeps a public path prefix in the resource and serves its path-inserted form as well', () => {
    const pr = protectedResource({
      publicUrl: 'https://example.com/kb',
      authorizationServers: ['https://broker.example.com'],
      scopes: ['mark.read'],
    });
    assert.equal(pr.resource, 'https://example.com/kb/mcp');
    assert.equal(pr.metadataUrl, 'https://example.com/.well-known/oauth-protected-resource/kb/mcp');
    assert.ok(pr.metadataPaths.includes('/.well-known/oauth-protected-resource/kb/mcp'));
    assert.deepEqual(pr.document.scopes_supported, ['mark.read']);
  });

  it('refuses a public URL with a query, and an empty issuer list', () => {
    assert.throws(
      () => protectedResource({ publicUrl: 'https://h/?x=1', authorizationServers: ['https://b'] }),
      RangeError,
    );
    assert.throws(() => protectedResource({ publicUrl: 'https://h', authorizationServers: [] }), RangeError);
  });
});
