import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MemoryOAuthProvider } from './memory-oauth-provider.ts';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';
import { UserAgent } from './signin-user-agent.ts';

const redirectUrl = 'http://127.0.0.1:33418/callback';

/**
 * The official MCP SDK's client-side OAuth, as MCP hosts use it: discovery
 * from the 401 and the protected-resource metadata, dynamic registration,
 * authorization code + PKCE, then authenticated MCP calls.
 */
describe('an MCP SDK client signing in by itself', () => {
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack();
  });
  after(() => stack.close());

  it('discovers the broker, registers, signs the user in and calls tools', async () => {
    const provider = new MemoryOAuthProvider(redirectUrl);
    assert.equal(await auth(provider, { serverUrl: stack.resource }), 'REDIRECT');
    assert.ok(provider.info?.client_id, 'registered through /register');
    const url = provider.authorizationUrl!;
    assert.equal(url.origin, stack.issuer);
    assert.equal(url.searchParams.get('resource'), stack.resource);
    const agent = new UserAgent();
    agent.stopAt = redirectUrl;
    const consent = await agent.go(url.href);
    const login = await agent.submit(consent, {}, 'decision=approve');
    const back = new URL((await stack.signInFrom(agent, login, 'quinn@example.com')).url);
    assert.equal(
      await auth(provider, { serverUrl: stack.resource, authorizationCode: back.searchParams.get('code')! }),
      'AUTHORIZED',
    );
    const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(stack.resource), { authProvider: provider }));
    const { tools } = await client.listTools();
    assert.ok(tools.length > 0);
    await client.close();
  });
});
