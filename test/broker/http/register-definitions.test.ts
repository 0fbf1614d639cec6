import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/server';
import { authInfoFor, identityFromAuthInfo } from '../../../src/broker/http/auth-info.ts';
import { toolCalledBy } from '../../../src/broker/http/mcp-server-factory.ts';
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

  it('advertises no list changes, since it never sends them', () => {
    const server = new McpServer({ name: 't', version: '0' });
    registerDefinitions(server, definitions, () => assert.fail('no call expected'));
    const capabilities = server.server.getCapabilities();
    assert.deepEqual(
      [capabilities.tools?.listChanged, capabilities.resources?.listChanged, capabilities.prompts?.listChanged],
      [false, false, false],
    );
    const oneTool = new McpServer({ name: 't', version: '0' });
    registerDefinitions(oneTool, definitions, () => assert.fail('no call expected'), {}, 'echo');
    assert.equal(oneTool.server.getCapabilities().tools?.listChanged, false);
  });

  it('registers tools, templates and prompts once each', () => {
    const server = new McpServer({ name: 't', version: '0' });
    registerDefinitions(server, definitions, () => assert.fail('no call expected'));
    // A second registration of the same names is a programming error the SDK refuses.
    assert.throws(() => registerDefinitions(server, definitions, () => assert.fail('no call expected')));
  });
});

describe('a server for one tools/call', () => {
  const noCall = () => assert.fail('no call expected');

  it('registers only the tool the request calls when it is one of ours', () => {
    const [first, second] = definitions.tools;
    const server = new McpServer({ name: 't', version: '0' });
    assert.equal(registerDefinitions(server, definitions, noCall, {}, first!.name), true);
    // The called tool is there (registering it again is refused); the other tools are not.
    assert.throws(() => server.registerTool(first!.name, { description: 'again' }, async () => ({ content: [] })));
    server.registerTool(second!.name, { description: 'free' }, async () => ({ content: [] }));
  });

  it('registers everything for a tool that is not ours, so the SDK answers it as before', () => {
    const server = new McpServer({ name: 't', version: '0' });
    assert.equal(registerDefinitions(server, definitions, noCall, {}, 'no_such_tool'), false);
    assert.throws(() => registerDefinitions(server, definitions, noCall));
  });

  it('names the tool of a single tools/call and nothing else', () => {
    assert.equal(
      toolCalledBy({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mark_fetch' } }),
      'mark_fetch',
    );
    assert.equal(toolCalledBy({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), undefined);
    assert.equal(toolCalledBy({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } }), undefined);
    assert.equal(toolCalledBy({ jsonrpc: '2.0', id: 1, method: 'tools/call' }), undefined);
    assert.equal(
      toolCalledBy([{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mark_fetch' } }]),
      undefined,
    );
    assert.equal(toolCalledBy(null), undefined);
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
