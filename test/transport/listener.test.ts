import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startMarkListener, defaultListenerLimits } from '../../src/transport/server.ts';
import { ListenFailedError, OutcomeUnknownError, TlsConfigError } from '../../src/transport/errors.ts';
import { generateDevCertificate } from '../../src/transport/tls.ts';
import { authorityOf, devCertificate, echoListener, encoder, gate, text, trustingClient } from './helpers.ts';

const rateLimitedBytes = '---\nstatus: rate-limited\n---\n\n# Rate limited\n\nrate limit exceeded\n';
const internalErrorBytes = '---\nstatus: server-error\n---\n\n# Server error\n\ninternal error\n';

describe('listener request bound (Mark SPEC §11.3: oversized requests are read failures)', () => {
  it('defaults the bound to request line + LF + payload bound', () => {
    assert.equal(defaultListenerLimits.maxRequestBytes, 4096 + 1 + 1_114_176);
  });

  it('flags a request over maxRequestBytes as truncated and still answers it', async () => {
    const listener = await echoListener({
      limits: { maxRequestBytes: 1000 },
      handler: async (request) => encoder.encode(`truncated=${request.truncated} read=${request.bytes.byteLength}`),
    });
    const client = await trustingClient();
    try {
      const over = await client.request(authorityOf(listener), new Uint8Array(5000), { idempotent: false });
      assert.equal(text(over), 'truncated=true read=1000');
      const exact = await client.request(authorityOf(listener), new Uint8Array(1000), { idempotent: false });
      assert.equal(text(exact), 'truncated=false read=1000');
    } finally {
      await client.close();
      await listener.close();
    }
  });
});

describe('listener request timeout', () => {
  it('resets the stream and aborts the handler signal once the timeout passes', async () => {
    const aborted = gate<boolean>();
    const listener = await echoListener({
      limits: { requestTimeoutMs: 500 },
      handler: (request) =>
        new Promise<Uint8Array>(() => {
          request.signal.addEventListener('abort', () => aborted.open(true));
        }),
    });
    const client = await trustingClient({ requestTimeoutMs: 5000 });
    try {
      const failure = client.request(authorityOf(listener), encoder.encode('PUBLISH /slow.md\n'), {
        idempotent: false,
      });
      await assert.rejects(failure, (error: unknown) => {
        assert.ok(error instanceof OutcomeUnknownError);
        assert.equal((error.cause as { code?: string }).code, 'ERR_CONNECTION_LOST');
        return true;
      });
      assert.equal(await aborted.promise, true);
    } finally {
      await client.close();
      await listener.close();
    }
  });
});

describe('listener rate limit (per IP token bucket)', () => {
  it('answers a request over the budget with the rate-limited response, without calling the handler', async () => {
    let handled = 0;
    const listener = await echoListener({
      limits: { ratePerSecond: 0.001, rateBurst: 2 },
      handler: async () => {
        handled += 1;
        return encoder.encode('ok');
      },
    });
    const client = await trustingClient();
    try {
      const answers: string[] = [];
      for (let i = 0; i < 4; i++) {
        answers.push(
          text(await client.request(authorityOf(listener), encoder.encode('FETCH /\n'), { idempotent: true })),
        );
      }
      assert.deepEqual(answers, ['ok', 'ok', rateLimitedBytes, rateLimitedBytes]);
      assert.equal(handled, 2);
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('uses the rateLimited callback for the refusal bytes', async () => {
    const listener = await echoListener({
      limits: { ratePerSecond: 0.001, rateBurst: 1 },
      rateLimited: (peer) => encoder.encode(`slow down ${peer.host}`),
    });
    const client = await trustingClient();
    try {
      await client.request(authorityOf(listener), encoder.encode('FETCH /\n'), { idempotent: true });
      const refused = await client.request(authorityOf(listener), encoder.encode('PUBLISH /a.md\n'), {
        idempotent: false,
      });
      assert.equal(text(refused), 'slow down 127.0.0.1');
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('holds a request whose token comes within the request timeout instead of refusing it', async () => {
    const listener = await echoListener({ limits: { ratePerSecond: 20, rateBurst: 1 } });
    const client = await trustingClient();
    try {
      const answers = await Promise.all(
        [1, 2, 3].map((i) =>
          client.request(authorityOf(listener), encoder.encode(`FETCH /${i}\n`), { idempotent: true }),
        ),
      );
      assert.deepEqual(answers.map(text), ['echo:FETCH /1\n', 'echo:FETCH /2\n', 'echo:FETCH /3\n']);
    } finally {
      await client.close();
      await listener.close();
    }
  });
});

describe('listener handler failures', () => {
  const failing = async (request: { bytes: Uint8Array }): Promise<Uint8Array> => {
    if (text(request.bytes).startsWith('FETCH /boom')) throw new Error('store exploded');
    return encoder.encode('fine');
  };

  it('answers a throwing handler with the default server-error response and keeps serving', async () => {
    const listener = await echoListener({ handler: failing });
    const client = await trustingClient();
    try {
      const failed = await client.request(authorityOf(listener), encoder.encode('FETCH /boom\n'), { idempotent: true });
      assert.equal(text(failed), internalErrorBytes);
      const next = await client.request(authorityOf(listener), encoder.encode('FETCH /ok\n'), { idempotent: true });
      assert.equal(text(next), 'fine');
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('answers a throwing handler with the onError bytes and warns through the given logger', async () => {
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const listener = await echoListener({
      handler: failing,
      onError: (error) => encoder.encode(`failed: ${(error as Error).message}`),
      logger: { warn: (fields, message) => warnings.push({ fields, message }) },
    });
    const client = await trustingClient();
    try {
      const failed = await client.request(authorityOf(listener), encoder.encode('FETCH /boom\n'), { idempotent: true });
      assert.equal(text(failed), 'failed: store exploded');
      assert.deepEqual(
        warnings.map((w) => w.message),
        ['mark request handler failed'],
      );
      assert.equal(warnings[0]?.fields.ip, '127.0.0.1');
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('falls back to the default server-error response when onError itself throws', async () => {
    const listener = await echoListener({
      handler: failing,
      onError: () => {
        throw new Error('no luck either');
      },
    });
    const client = await trustingClient();
    try {
      const failed = await client.request(authorityOf(listener), encoder.encode('FETCH /boom\n'), { idempotent: true });
      assert.equal(text(failed), internalErrorBytes);
    } finally {
      await client.close();
      await listener.close();
    }
  });

  it('answers a handler that returns something other than bytes as a failure', async () => {
    const listener = await echoListener({ handler: async () => 'not bytes' as unknown as Uint8Array });
    const client = await trustingClient();
    try {
      const failed = await client.request(authorityOf(listener), encoder.encode('FETCH /\n'), { idempotent: true });
      assert.equal(text(failed), internalErrorBytes);
    } finally {
      await client.close();
      await listener.close();
    }
  });
});

describe('listener start-up checks', () => {
  it('refuses a zero request timeout', async () => {
    await assert.rejects(echoListener({ limits: { requestTimeoutMs: 0 } }), RangeError);
  });

  it('refuses a key that does not belong to the certificate', async () => {
    const other = await generateDevCertificate();
    const tls = { key: other.key, cert: (await devCertificate()).cert };
    await assert.rejects(
      startMarkListener({ host: '127.0.0.1', port: 0, tls, handler: async () => new Uint8Array() }),
      (error: unknown) => error instanceof TlsConfigError && error.code === 'ERR_TLS_CONFIG',
    );
  });

  it('fails with ListenFailedError when the UDP port is taken', async () => {
    const first = await echoListener();
    try {
      await assert.rejects(echoListener({ port: first.port }), (error: unknown) => {
        assert.ok(error instanceof ListenFailedError);
        assert.equal(error.code, 'ERR_LISTEN_FAILED');
        assert.equal(error.address, `127.0.0.1:${first.port}`);
        return true;
      });
    } finally {
      await first.close();
    }
  });
});
