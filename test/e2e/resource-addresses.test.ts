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
});
