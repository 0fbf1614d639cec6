import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, IncomingMessage, request, type Server, ServerResponse } from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { toNodeMcpHandler, type McpFetch, type NodeMcpOptions } from '../../../src/broker/http/node-mcp-adapter.ts';
import { rawRequest } from './raw-http.ts';

/** A plain Node server whose every request goes through the adapter to `fetch`, with `{"parsed": true}` as the body. */
async function serve(fetch: McpFetch, options?: NodeMcpOptions): Promise<{ url: string; server: Server }> {
  const handler = toNodeMcpHandler(fetch, options);
  const server = createServer((req, res) => {
    req.resume();
    void handler(req, res, { jsonrpc: '2.0', id: 7, method: 'tools/call' }, { token: '', clientId: 'c', scopes: [] });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('toNodeMcpHandler', () => {
  const servers: Server[] = [];
  after(() => {
    for (const server of servers) server.close();
  });

  it('hands the handler a body-less Request with the headers, the parsed body and the auth info', async () => {
    let seen: { method: string; url: string; accept: string | null; hasBody: boolean; options: unknown } | undefined;
    const { url, server } = await serve(async (request, options) => {
      seen = {
        method: request.method,
        url: request.url,
        accept: request.headers.get('accept'),
        hasBody: request.body !== null,
        options,
      };
      return Response.json({ ok: true });
    });
    servers.push(server);
    await rawRequest(url, {
      method: 'POST',
      path: '/mcp?x=1',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(seen?.method, 'POST');
    assert.match(seen?.url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp\?x=1$/);
    assert.equal(seen?.accept, 'application/json, text/event-stream');
    assert.equal(seen?.hasBody, false);
    assert.deepEqual(seen?.options, {
      authInfo: { token: '', clientId: 'c', scopes: [] },
      parsedBody: { jsonrpc: '2.0', id: 7, method: 'tools/call' },
    });
  });

  it('writes a JSON answer whole, with its status, headers and length', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { text: 'é'.repeat(100) } });
    const { url, server } = await serve(
      async () =>
        new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': 's1' } }),
    );
    servers.push(server);
    const response = await rawRequest(url, { method: 'POST' });
    assert.equal(response.status, 200);
    assert.equal(response.headers['mcp-session-id'], 's1');
    assert.equal(response.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(response.text, body);
  });

  it('answers a body-less response with its status alone', async () => {
    const { url, server } = await serve(async () => new Response(null, { status: 202 }));
    servers.push(server);
    const response = await rawRequest(url, { method: 'POST' });
    assert.equal(response.status, 202);
    assert.equal(response.text, '');
  });

  it('streams an event stream chunk by chunk as the handler produces it', async () => {
    let push: ((text: string) => void) | undefined;
    let end: (() => void) | undefined;
    const { url, server } = await serve(async () => {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          push = (text) => controller.enqueue(new TextEncoder().encode(text));
          end = () => controller.close();
        },
      });
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
    });
    servers.push(server);
    const target = new URL(url);
    const first = new Promise<string>((resolve, reject) => {
      request({ host: target.hostname, port: target.port, path: target.pathname }, (response) => {
        assert.equal(response.headers['content-type'], 'text/event-stream');
        response.setEncoding('utf8');
        let text = '';
        response.on('data', (chunk: string) => {
          text += chunk;
          // The first event arrives while the stream is still open.
          if (text === 'data: one\n\n') resolve(text);
        });
        response.on('end', () => reject(new Error(`ended before the first event alone: ${text}`)));
      })
        .on('error', reject)
        .end();
      const started = setInterval(() => {
        if (push === undefined) return;
        clearInterval(started);
        push('data: one\n\n');
      }, 5);
    });
    assert.equal(await first, 'data: one\n\n');
    end?.();
  });

  it('answers a handler failure with a JSON-RPC internal error echoing the request id', async () => {
    const { url, server } = await serve(async () => {
      throw new Error('boom');
    });
    servers.push(server);
    const response = await rawRequest(url, { method: 'POST' });
    assert.equal(response.status, 500);
    assert.deepEqual(response.json(), {
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal server error' },
      id: 7,
    });
  });
  it("aborts the Request's signal when the client goes before the answer (the 2026-07-28 handler reads it)", async () => {
    const outcome = await signalWhenClientGoes({ requestSignal: true });
    assert.equal(outcome, 'aborted');
  });

  it('links no signal into the Request when the handler does not read it', async () => {
    const outcome = await signalWhenClientGoes({ requestSignal: false });
    assert.equal(outcome, 'not aborted');
  });

  it('stops copying an event stream when the client goes, with no request signal', async () => {
    let push: ((text: string) => void) | undefined;
    const cancelled = Promise.withResolvers<void>();
    const { url, server } = await serve(
      async () => {
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            push = (text) => controller.enqueue(new TextEncoder().encode(text));
          },
          cancel: () => cancelled.resolve(),
        });
        push?.('data: one\n\n');
        return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
      },
      { requestSignal: false },
    );
    servers.push(server);
    const target = new URL(url);
    const client = request({ host: target.hostname, port: target.port, path: target.pathname });
    const responded = once(client, 'response');
    client.end();
    const [response] = (await responded) as [IncomingMessage];
    await once(response, 'data');
    client.destroy();
    await once(client, 'close');
    // The copy notices the client's absence at its next chunk and cancels the stream.
    const pushing = setInterval(() => push?.('data: more\n\n'), 5);
    try {
      await cancelled.promise;
    } finally {
      clearInterval(pushing);
    }
  });

  it('stops an event stream whose client is not draining when `ends` aborts: the read is cancelled and the response ends', async () => {
    // A real ServerResponse with no socket: every write is held in its own buffer, so a chunk past
    // its 16 KiB high-water mark makes write() return false and `drain` never comes, as with a
    // client that stopped reading (node:_http_outgoing, _writeRaw). A copy left waiting for `drain`
    // after the stop never settles `handled`: the test then fails at the runner's --test-timeout.
    const req = new IncomingMessage(new Socket());
    req.method = 'GET';
    const res = new ServerResponse(req);
    const written: boolean[] = [];
    const blocked = Promise.withResolvers<void>();
    const write = res.write.bind(res) as (chunk: Uint8Array) => boolean;
    res.write = ((chunk: Uint8Array) => {
      const accepted = write(chunk);
      written.push(accepted);
      if (!accepted) blocked.resolve();
      return accepted;
    }) as typeof res.write;
    const cancelled = Promise.withResolvers<unknown>();
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(chunk),
      cancel: (reason) => cancelled.resolve(reason),
    });
    const handler = toNodeMcpHandler(
      async () => new Response(stream, { headers: { 'content-type': 'text/event-stream' } }),
      { requestSignal: false },
    );
    const ends = new AbortController();
    const handled = handler(req, res, undefined, undefined, ends.signal);
    await blocked.promise;
    assert.equal(res.writableNeedDrain, true, 'the copy is waiting for drain');
    ends.abort();
    await handled;
    await cancelled.promise;
    // One chunk written, refused, and nothing read or written after the stop.
    assert.deepEqual(written, [false]);
    assert.equal(res.writableEnded, true);
  });

  /** Whether the handler's Request signal has aborted once the response closed because the client went. */
  async function signalWhenClientGoes(options: NodeMcpOptions): Promise<'aborted' | 'not aborted'> {
    const entered = Promise.withResolvers<AbortSignal>();
    const responseClosed = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const handler = toNodeMcpHandler(async (webRequest) => {
      entered.resolve(webRequest.signal);
      await release.promise;
      return Response.json({ ok: true });
    }, options);
    const server = createServer((req, res) => {
      req.resume();
      // Registered before the adapter's own listener: by the time this resolves, that one has run.
      res.on('close', () => responseClosed.resolve());
      void handler(req, res, { jsonrpc: '2.0', id: 7, method: 'tools/call' }, undefined);
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = request({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      path: '/mcp',
      method: 'POST',
    });
    client.on('error', () => {});
    client.end('{}');
    const signal = await entered.promise;
    client.destroy();
    await responseClosed.promise;
    release.resolve();
    return signal.aborted ? 'aborted' : 'not aborted';
  }
});
