import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { startListener } from './fixtures.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from './raw-http.ts';

/** The messages the MCP listener logs at `level` while it answers one signed-in initialize and one request without a token. */
async function messagesAt(level: 'info' | 'debug'): Promise<string[]> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const harness = await startListener({ logger: { level, stream } });
  try {
    const signedIn = await rawRequest(harness.url, {
      method: 'POST',
      headers: jsonRpcHeaders(await harness.token()),
      body: initializeBody,
    });
    assert.equal(signedIn.status, 200);
    const refused = await rawRequest(harness.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initializeBody,
    });
    assert.equal(refused.status, 401);
  } finally {
    await harness.close();
  }
  return lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
}

describe('request lines of the MCP listener', () => {
  it('logs no line per answered request at info, and still logs a refusal', async () => {
    const messages = await messagesAt('info');
    assert.ok(!messages.includes('incoming request'), messages.join(' | '));
    assert.ok(!messages.includes('request completed'), messages.join(' | '));
    assert.ok(messages.includes('bearer token refused'), messages.join(' | '));
  });

  it('logs both lines of every request at debug', async () => {
    const messages = await messagesAt('debug');
    assert.equal(messages.filter((msg) => msg === 'incoming request').length, 2);
    assert.equal(messages.filter((msg) => msg === 'request completed').length, 2);
  });
});
