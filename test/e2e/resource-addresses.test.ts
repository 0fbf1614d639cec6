import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { resultText, startStack, type Stack } from './stack-fixture.ts';

/**
 * Resources as an agent meets them through the official MCP SDK client, real
 * broker and real worlds: addressed as the tools address documents, and
 * listed by the MCP pagination rules.
 */
describe('resources read, subscribed and listed as the tools and the MCP spec say', () => {
  let stack: Stack;
  let client: Client;
  before(async () => {
    stack = await startStack({ worlds: ['root'] });
    client = await stack.connect();
  });
  after(async () => {
    await client.close();
    await stack.close();
  });

  it('reads and subscribes a bare world URL (mark://root) as its root, /, as the tools read it', async () => {
    // Before, resources/read of mark://root answered "Resource not found" while mark_fetch read it as /.
    const tool = resultText(await client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://root' } }));
    const root = await client.readResource({ uri: 'mark://root/' });
    const bare = await client.readResource({ uri: 'mark://root' });
    const [rootContents] = root.contents as Array<{ uri: string; text: string }>;
    assert.deepEqual(bare.contents, [{ ...rootContents, uri: 'mark://root' }]);
    assert.ok(tool.endsWith(`\n${rootContents!.text}`), tool);
    await client.subscribeResource({ uri: 'mark://root' });
    await client.unsubscribeResource({ uri: 'mark://root' });
  });

  it('refuses a resources/list cursor with -32602: the broker hands out none (MCP pagination)', async () => {
    // Before, the cursor was ignored and the first page came back again, as if it were the next one.
    const first = await client.listResources();
    assert.equal(first.nextCursor, undefined);
    await assert.rejects(client.listResources({ cursor: 'bm90LWEtY3Vyc29y' }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /cursor/);
      return true;
    });
  });

  it('answers a listed resource that has not been published with resource-not-found, as its description says', async () => {
    // Before, a fresh stack listed index.md, world.md and the publishing policy, and reading them answered
    // a bare -32602 invalid params ("mark://root/index.md: not-found"), as if the URI were malformed. MCP
    // 2026-07-28 answers resource-not-found as -32602 carrying data.uri (the installed SDK's
    // ResourceNotFoundError; it never sends the older -32002, which clients still accept).
    const notFound = (uri: string) => (error: unknown) => {
      assert.ok(error instanceof McpError, uri);
      assert.ok(error.code === -32602 || error.code === -32002, `${uri}: ${error.message}`);
      assert.deepEqual(error.data, { uri }, `${uri}: ${error.message}`);
      return true;
    };
    const { resources } = await client.listResources();
    let missing = 0;
    for (const resource of resources) {
      try {
        await client.readResource({ uri: resource.uri });
      } catch (error) {
        notFound(resource.uri)(error);
        assert.match((error as Error).message, /not-found/, resource.uri);
        assert.match(resource.description ?? '', /resource not found/, resource.uri);
        missing++;
      }
    }
    assert.ok(resources.some((resource) => resource.uri === 'mark://root/.well-known/demarkus/policy.md'));
    assert.ok(missing > 0, 'a fresh stack has listed resources nobody has published');
    await assert.rejects(client.readResource({ uri: 'mark://root/no/such.md' }), notFound('mark://root/no/such.md'));
  });
});
