import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer, requireScopes, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { BrokerHttpTransport } from '../../../src/broker/http/sdk-transport.ts';

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * One stateless tools/call of a tool that declares the SDK's own scope
 * challenge (`requireScopes`), with auth info that has no scopes, as the
 * broker's always has (src/broker/http/auth-info.ts): the status and body.
 */
async function callScopedTool(
  transport: WebStandardStreamableHTTPServerTransport,
): Promise<{ status: number; body: string }> {
  const server = new McpServer({ name: 't', version: '0' });
  server.registerTool(
    'scoped',
    { description: 'needs a scope', scopeChallenge: requireScopes('mark.write') },
    async () => ({
      content: [{ type: 'text' as const, text: 'ran' }],
    }),
  );
  await server.connect(transport);
  const response = await transport.handleRequest(new Request('http://broker.test/mcp', { method: 'POST', headers }), {
    parsedBody: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'scoped', arguments: {} } },
    authInfo: { token: '', clientId: 'c', scopes: [] },
  });
  const body = await response.text();
  await server.close();
  return { status: response.status, body };
}

describe('BrokerHttpTransport', () => {
  it('leaves scopes to the broker: the SDK transport refuses the call on its own, this one runs it', async () => {
    // The SDK's pass, which the broker never uses (scope-hook.ts decides before the SDK sees the request).
    const sdk = await callScopedTool(new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true }));
    assert.equal(sdk.status, 403);
    const ours = await callScopedTool(new BrokerHttpTransport({ enableJsonResponse: true }));
    assert.equal(ours.status, 200);
    assert.match(ours.body, /"text":"ran"/);
  });
});
