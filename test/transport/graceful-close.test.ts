import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authorityOf, echoListener, encoder, gate, text, trustingClient } from './helpers.ts';

/** What `demarkus-broker world` does on SIGTERM (src/cli/world-command.ts): close({ graceMs }). */
describe('listener graceful close', () => {
  it('lets a request in flight finish and answer, and serves one sent on its connection meanwhile', async () => {
    const started = gate();
    const release = gate();
    const listener = await echoListener({
      handler: async (request) => {
        if (text(request.bytes).startsWith('FETCH /slow.md')) {
          started.open();
          await release.promise;
          return encoder.encode('slow answered');
        }
        return encoder.encode('fast answered');
      },
    });
    const client = await trustingClient({ requestTimeoutMs: 30_000 });
    try {
      const slow = client.request(authorityOf(listener), encoder.encode('FETCH /slow.md\n'), { idempotent: false });
      await started.promise;
      const closed = listener.close({ graceMs: 60_000 });
      const late = client.request(authorityOf(listener), encoder.encode('FETCH /late.md\n'), { idempotent: false });
      assert.equal(text(await late), 'fast answered');
      release.open();
      assert.equal(text(await slow), 'slow answered');
      await closed;
    } finally {
      release.open();
      await client.close();
      await listener.close();
    }
  });

  it('cuts a request that outlives the bound, and the close still ends', async () => {
    const started = gate();
    const aborted = gate<string>();
    const listener = await echoListener({
      handler: (request) =>
        new Promise<Uint8Array>(() => {
          request.signal.addEventListener('abort', () => aborted.open(String(request.signal.reason)));
          started.open();
        }),
    });
    const client = await trustingClient({ requestTimeoutMs: 30_000 });
    try {
      const never = client.request(authorityOf(listener), encoder.encode('WATCH /\n'), { idempotent: false }).then(
        () => 'answered',
        () => 'cut',
      );
      await started.promise;
      await listener.close({ graceMs: 50 });
      assert.match(await aborted.promise, /listener closed/);
      assert.equal(await never, 'cut');
    } finally {
      await client.close();
    }
  });
});
