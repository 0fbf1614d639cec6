import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { startListener } from './fixtures.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from './raw-http.ts';

describe('standalone SSE stream of a session', () => {
  it('opens on GET with the session id, and does not keep the listener from closing', async () => {
    const harness = await startListener();
    const token = await harness.token();
    const opened = await rawRequest(harness.url, {
      method: 'POST',
      headers: jsonRpcHeaders(token),
      body: initializeBody,
    });
    const sessionId = opened.headers['mcp-session-id'] as string;
    const url = new URL(harness.url);
    const stream = await new Promise<{ status: number; type: string | undefined; ended: Promise<void> }>(
      (resolve, reject) => {
        const outgoing = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/mcp',
            method: 'GET',
            headers: {
              authorization: `Bearer ${token}`,
              accept: 'text/event-stream',
              'mcp-session-id': sessionId,
              'mcp-protocol-version': '2025-11-25',
            },
          },
          (response) => {
            const ended = new Promise<void>((done) => {
              response.on('close', () => done());
              response.on('error', () => done());
            });
            response.resume();
            resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], ended });
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      },
    );
    assert.equal(stream.status, 200);
    assert.equal(stream.type, 'text/event-stream');
    await harness.close();
    await stream.ended;
    assert.equal(harness.listener.sessions.size, 0);
  });
});
