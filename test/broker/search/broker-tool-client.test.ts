import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrokerCallError, callBrokerTool } from '../../../src/broker/search/index.ts';

/**
 * The wording of the CLI's broker calls when the broker does not answer with a
 * tool result. The real broker's 401 is covered by cli-search.test.ts; this
 * server answers what a broker, a proxy in front of it, or a broken deployment
 * can answer, one answer per path.
 */
describe('broker tool calls: refusals worded for a person', () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (request.url === '/proxy-error') {
          response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway\nupstream closed');
        } else if (request.url === '/forbidden') {
          response
            .writeHead(403, {
              'www-authenticate':
                'Bearer error="invalid_token", error_description="domain \\"example.org\\" not allowed"',
            })
            .end();
        } else {
          const message = JSON.parse(body) as { id: number };
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'bad arguments' } }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const failure = async (url: string) => {
    const error = await callBrokerTool(url, 'token', 'mark_search', { query: 'x' }).then(
      () => assert.fail('the call succeeded'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof BrokerCallError);
    assert.equal(error.code, 'ERR_BROKER_CALL');
    return error.message;
  };

  it('names the status and the first line of a non-MCP answer', async () => {
    assert.equal(await failure(`${base}/proxy-error`), 'the broker answered HTTP 502: bad gateway');
  });

  it("shows the bearer challenge's reason for a refused token, escaped quotes and all", async () => {
    assert.equal(
      await failure(`${base}/forbidden`),
      'the broker refused the token (HTTP 403: domain "example.org" not allowed); sign in again (demarkus-broker login) or pass a fresh token with --token',
    );
  });

  it('passes a JSON-RPC error on with its code', async () => {
    assert.equal(await failure(`${base}/mcp`), 'the broker refused the call: bad arguments (-32602)');
  });

  it('says the broker cannot be reached when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/mcp`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.match(await failure(url), new RegExp(`^cannot reach the broker at ${url}: `));
  });
});
