import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ClientClosedError,
  ConnectionLostError,
  DialFailedError,
  OutcomeUnknownError,
  RequestAbortedError,
  ResponseTooLargeError,
  TimeoutError,
} from '../../src/transport/errors.ts';
import { maxResponseBytes } from '../../src/protocol/limits.ts';
import { authorityOf, devCertificate, echoListener, encoder, gate, text, trustingClient } from './helpers.ts';
import { spawnEchoListener } from './fixtures/spawn-listener.ts';

const never = (): Promise<Uint8Array> => new Promise<Uint8Array>(() => {});

/** A port that was free a moment ago: bind a listener, note its port, close it. */
async function freePort(): Promise<number> {
  const probe = await echoListener();
  await probe.close();
  return probe.port;
}

describe('redial after a dead connection (Go client: one pooled connection per authority)', () => {
  it('sends a read to the restarted server after the old one closed on the same port', async () => {
    const first = await echoListener({ handler: async () => encoder.encode('first') });
    const client = await trustingClient();
    try {
      const authority = authorityOf(first);
      assert.equal(text(await client.request(authority, encoder.encode('FETCH /\n'), { idempotent: true })), 'first');
      await first.close();
      const second = await echoListener({ port: first.port, handler: async () => encoder.encode('second') });
      try {
        assert.equal(
          text(await client.request(authority, encoder.encode('FETCH /\n'), { idempotent: true })),
          'second',
        );
      } finally {
        await second.close();
      }
    } finally {
      await client.close();
    }
  });

  it('retries a read on a fresh connection after the server died without a word', async () => {
    const tls = await devCertificate();
    const first = await spawnEchoListener(tls);
    const client = await trustingClient({ requestTimeoutMs: 1000 });
    try {
      const authority = authorityOf(first);
      const before = text(await client.request(authority, encoder.encode('FETCH /\n'), { idempotent: true }));
      assert.equal(before, `echo(${first.child.pid}):FETCH /\n`);
      await first.kill();
      const second = await spawnEchoListener(tls, first.port);
      try {
        // The pooled connection still looks alive; its attempt times out, the retry redials.
        const after = text(await client.request(authority, encoder.encode('FETCH /\n'), { idempotent: true }));
        assert.equal(after, `echo(${second.child.pid}):FETCH /\n`);
      } finally {
        await second.kill();
      }
    } finally {
      await client.close();
    }
  });
});

describe('writes are sent at most once (Go client: ErrOutcomeUnknown)', () => {
  it('reports OutcomeUnknownError for a write the server took and never answered, without resending', async () => {
    let received = 0;
    const listener = await echoListener({
      handler: () => {
        received += 1;
        return never();
      },
    });
    const client = await trustingClient({ requestTimeoutMs: 1000 });
    try {
      await assert.rejects(
        client.request(authorityOf(listener), encoder.encode('PUBLISH /a.md\n\nbody'), { idempotent: false }),
        (error: unknown) => {
          assert.ok(error instanceof OutcomeUnknownError);
          assert.equal(error.code, 'ERR_OUTCOME_UNKNOWN');
          assert.equal(error.message, 'request sent but outcome unknown');
          assert.ok(error.cause instanceof TimeoutError);
          return true;
        },
      );
      assert.equal(received, 1);
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('reports OutcomeUnknownError for a write whose server went away mid-request', async () => {
    const arrived = gate();
    const handlerAborted = gate<boolean>();
    let received = 0;
    const listener = await echoListener({
      handler: (request) => {
        received += 1;
        request.signal.addEventListener('abort', () => handlerAborted.open(true));
        arrived.open();
        return never();
      },
    });
    const client = await trustingClient();
    try {
      const pending = client.request(authorityOf(listener), encoder.encode('ARCHIVE /a.md\n'), { idempotent: false });
      await arrived.promise;
      const outcome = assert.rejects(pending, (error: unknown) => {
        assert.ok(error instanceof OutcomeUnknownError);
        assert.ok(error.cause instanceof ConnectionLostError);
        return true;
      });
      await listener.close();
      await outcome;
      assert.equal(received, 1);
      assert.equal(await handlerAborted.promise, true, 'closing the listener aborts its in-flight handlers');
    } finally {
      await client.close();
    }
  });

  it('retries a write whose dial failed, because none of it was sent', async () => {
    const port = await freePort();
    const client = await trustingClient({ dialTimeoutMs: 250, maxAttempts: 20 });
    let listener: Awaited<ReturnType<typeof echoListener>> | undefined;
    try {
      const pending = client.request(authorityOf({ port }), encoder.encode('PUBLISH /late.md\n'), {
        idempotent: false,
      });
      // The first dial finds nobody; a later attempt finds the listener.
      await new Promise((resolve) => setTimeout(resolve, 250));
      listener = await echoListener({ port });
      assert.equal(text(await pending), 'echo:PUBLISH /late.md\n');
    } finally {
      await client.close();
      await listener?.close();
    }
  });

  it('gives up with DialFailedError, not OutcomeUnknownError, when nobody ever answers the dial', async () => {
    const port = await freePort();
    const client = await trustingClient({ dialTimeoutMs: 100, maxAttempts: 2 });
    try {
      await assert.rejects(
        client.request(authorityOf({ port }), encoder.encode('PUBLISH /a.md\n'), { idempotent: false }),
        (error: unknown) => {
          assert.ok(error instanceof DialFailedError);
          assert.equal(error.code, 'ERR_DIAL_FAILED');
          assert.equal(error.address, `127.0.0.1:${port}`);
          return true;
        },
      );
    } finally {
      await client.close();
    }
  });
});

describe('reads are retried (Go client: maxRetries 5)', () => {
  it('times out a read after five attempts, each reaching the server', async () => {
    let received = 0;
    const listener = await echoListener({
      handler: () => {
        received += 1;
        return never();
      },
    });
    const client = await trustingClient({ requestTimeoutMs: 400 });
    try {
      await assert.rejects(
        client.request(authorityOf(listener), encoder.encode('FETCH /slow\n'), { idempotent: true }),
        (error: unknown) => error instanceof TimeoutError && error.code === 'ERR_TIMEOUT' && error.timeoutMs === 400,
      );
      assert.equal(received, 5);
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('uses the per-request timeout over the client default', async () => {
    const listener = await echoListener({ handler: never });
    const client = await trustingClient({ maxAttempts: 1 });
    try {
      await assert.rejects(
        client.request(authorityOf(listener), encoder.encode('FETCH /\n'), { idempotent: true, timeoutMs: 120 }),
        (error: unknown) => error instanceof TimeoutError && error.timeoutMs === 120,
      );
    } finally {
      await client.close();
      await listener.close();
    }
  });
});

describe('response size cap (Mark MaxResponseLength 4 MiB)', () => {
  it('rejects a response one byte over the default cap, without retrying', async () => {
    let served = 0;
    // Moving 4 MiB takes seconds here (about 2 MB/s through @matrixai/quic), more on
    // a loaded machine: generous timeouts keep a slow transfer from turning into a retry.
    const listener = await echoListener({
      limits: { requestTimeoutMs: 120_000 },
      handler: async () => {
        served += 1;
        return new Uint8Array(maxResponseBytes + 1);
      },
    });
    const client = await trustingClient({ requestTimeoutMs: 120_000 });
    try {
      await assert.rejects(
        client.request(authorityOf(listener), encoder.encode('FETCH /huge\n'), { idempotent: true }),
        (error: unknown) =>
          error instanceof ResponseTooLargeError &&
          error.code === 'ERR_RESPONSE_TOO_LARGE' &&
          error.limitBytes === maxResponseBytes,
      );
      assert.equal(served, 1);
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('accepts a response exactly at a configured cap and rejects one byte more', async () => {
    const listener = await echoListener({ handler: async (request) => new Uint8Array(Number(text(request.bytes))) });
    const client = await trustingClient({ maxResponseBytes: 100 });
    try {
      const atCap = await client.request(authorityOf(listener), encoder.encode('100'), { idempotent: true });
      assert.equal(atCap.byteLength, 100);
      await assert.rejects(
        client.request(authorityOf(listener), encoder.encode('101'), { idempotent: false }),
        ResponseTooLargeError,
      );
    } finally {
      await client.close();
      await listener.close();
    }
  });
});

describe('caller control', () => {
  it('stops a read when the caller aborts', async () => {
    const listener = await echoListener({ handler: never });
    const client = await trustingClient();
    try {
      const controller = new AbortController();
      const pending = client.request(authorityOf(listener), encoder.encode('FETCH /\n'), {
        idempotent: true,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(
        pending,
        (error: unknown) => error instanceof RequestAbortedError && error.code === 'ERR_ABORTED',
      );
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('reports an aborted write that already left as OutcomeUnknownError', async () => {
    const arrived = gate();
    const listener = await echoListener({
      handler: () => {
        arrived.open();
        return never();
      },
    });
    const client = await trustingClient();
    try {
      const controller = new AbortController();
      const pending = client.request(authorityOf(listener), encoder.encode('PUBLISH /a.md\n'), {
        idempotent: false,
        signal: controller.signal,
      });
      await arrived.promise;
      controller.abort();
      await assert.rejects(pending, (error: unknown) => {
        assert.ok(error instanceof OutcomeUnknownError);
        assert.ok(error.cause instanceof RequestAbortedError);
        return true;
      });
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('refuses requests once closed', async () => {
    const listener = await echoListener();
    const client = await trustingClient();
    await client.request(authorityOf(listener), encoder.encode('FETCH /\n'), { idempotent: true });
    await client.close();
    try {
      await assert.rejects(
        client.request(authorityOf(listener), encoder.encode('FETCH /\n'), { idempotent: true }),
        (error: unknown) => error instanceof ClientClosedError && error.code === 'ERR_CLIENT_CLOSED',
      );
    } finally {
      await listener.close();
    }
  });
});
