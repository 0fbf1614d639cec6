import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { blackHole } from '../support/black-hole.ts';
import { MarkTransportClient } from '../../src/transport/client.ts';
import { DialFailedError } from '../../src/transport/errors.ts';

const request = new TextEncoder().encode('FETCH /x.md mark/1\n\n');

describe('transport: a dial that gets no handshake (real QUIC, a silent UDP port)', () => {
  it('is retried by default, as the Go client does, and not with retryDialTimeouts: false', async () => {
    const hole = await blackHole();
    const options = { dialTimeoutMs: 300, requestTimeoutMs: 5_000, maxAttempts: 3, insecureSkipVerify: true };
    const authority = { host: '127.0.0.1', port: hole.port };
    try {
      const retrying = new MarkTransportClient(options);
      await assert.rejects(retrying.request(authority, request, { idempotent: true }), DialFailedError);
      await retrying.close();
      assert.equal(hole.dials(), 3);

      const once = new MarkTransportClient({ ...options, retryDialTimeouts: false });
      await assert.rejects(once.request(authority, request, { idempotent: true }), (error: unknown) => {
        assert.ok(error instanceof DialFailedError);
        assert.equal(error.timedOut, true);
        return true;
      });
      await once.close();
      assert.equal(hole.dials(), 4);
    } finally {
      hole.close();
    }
  });
});
