import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/server';
import { authInfoFor, identityFromAuthInfo } from '../../../src/broker/http/auth-info.ts';
import { registerDefinitions } from '../../../src/broker/http/register-definitions.ts';
import type { Identity } from '../../../src/broker/identity.ts';
import { definitions } from './fixtures.ts';

const identity: Identity = {
  subject: 'sub-1',
  email: 'ada@example.com',
  emailVerified: true,
  groups: [],
  issuedBy: 'broker',
};

describe('registerDefinitions', () => {
  it('refuses concrete resources without a template to read them through', () => {
    const server = new McpServer({ name: 't', version: '0' });
    assert.throws(
      () =>
        registerDefinitions(server, { ...definitions, resourceTemplates: [] }, () => assert.fail('no call expected')),
      TypeError,
    );
  });

  it('registers tools, templates and prompts once each', () => {
    const server = new McpServer({ name: 't', version: '0' });
    registerDefinitions(server, definitions, () => assert.fail('no call expected'));
    // A second registration of the same names is a programming error the SDK refuses.
    assert.throws(() => registerDefinitions(server, definitions, () => assert.fail('no call expected')));
  });
});

describe('identity hand-over to tool handlers (no token passthrough)', () => {
  it('carries the identity but not the bearer token', () => {
    const info = authInfoFor(identity);
    assert.equal(info.token, '');
    assert.deepEqual(identityFromAuthInfo(info), identity);
  });

  it('refuses a handler call that arrives without a verified identity', () => {
    assert.throws(() => identityFromAuthInfo(undefined), /without a verified identity/);
    assert.throws(() =>
      identityFromAuthInfo({ token: 't', clientId: 'c', scopes: [], extra: { 'demarkus.identity': { subject: 1 } } }),
    );
  });
});
