/**
 * What every WorldGateway (src/broker/worlds/gateway.ts) promises its callers,
 * as one suite each implementation and each test fake runs
 * (test/broker/worlds/gateway-contract.test.ts). A fake that drifts from the
 * real gateway makes the tests built on it prove nothing, so the fakes answer
 * to the same contract as production.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Identity } from '../../../src/broker/identity.ts';
import { WorldGatewayError, type WorldGateway } from '../../../src/broker/worlds/gateway.ts';

export type GatewayUnderTest = {
  gateway: WorldGateway;
  /** A world `writer` may write; its `/private/**` is read-protected by `readToken`. */
  world: string;
  /** A verified identity on the world's writer allowlist. */
  writer: Identity;
  /** A verified identity not on it. */
  outsider: Identity;
  /** A raw token that grants `read` on the world's `/private/**`. */
  readToken: string;
  close(): Promise<void>;
};

const text = (body: Uint8Array) => Buffer.from(body).toString();

function rejectsWith(code: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof WorldGatewayError, `expected a WorldGatewayError, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  };
}

export function worldGatewayContract(name: string, open: () => Promise<GatewayUnderTest>): void {
  describe(`WorldGateway contract: ${name}`, () => {
    let subject: GatewayUnderTest;
    before(async () => {
      subject = await open();
    });
    after(() => subject.close());

    it('lists each world once, and get answers what list says', () => {
      const { gateway, world } = subject;
      const names = gateway.list().map((info) => info.name);
      assert.equal(new Set(names).size, names.length);
      assert.ok(names.includes(world));
      for (const info of gateway.list()) assert.deepEqual(gateway.get(info.name), info);
    });

    it('knows no world it does not list: get, canWrite, read and write all say so', async () => {
      const { gateway, writer } = subject;
      assert.equal(gateway.get('no-such-world'), undefined);
      assert.equal(gateway.canWrite('no-such-world', writer), false);
      await assert.rejects(
        gateway.read('no-such-world', { verb: 'FETCH', path: '/a.md' }),
        rejectsWith('ERR_WORLD_NOT_FOUND'),
      );
      await assert.rejects(
        gateway.write('no-such-world', writer, { verb: 'PUBLISH', path: '/a.md', body: 'x\n' }),
        rejectsWith('ERR_WORLD_NOT_FOUND'),
      );
    });

    it("writes for an allowed writer, and reads answer the world's document and its statuses", async () => {
      const { gateway, world, writer } = subject;
      assert.equal(gateway.canWrite(world, writer), true);
      const written = await gateway.write(world, writer, {
        verb: 'PUBLISH',
        path: '/contract/a.md',
        metadata: { 'expected-version': '0' },
        body: '# Contract\n',
      });
      assert.equal(written.status, 'created');
      const read = await gateway.read(world, { verb: 'FETCH', path: '/contract/a.md' });
      assert.equal(read.status, 'ok');
      assert.equal(text(read.body), '# Contract\n');
      // A world's own refusal is an answer, not a gateway failure.
      assert.equal((await gateway.read(world, { verb: 'FETCH', path: '/contract/missing.md' })).status, 'not-found');
    });

    it('refuses a writer outside the allowlist and an unverified email, and writes nothing', async () => {
      const { gateway, world, writer, outsider } = subject;
      const unverified: Identity = { ...writer, emailVerified: false };
      assert.equal(gateway.canWrite(world, outsider), false);
      assert.equal(gateway.canWrite(world, unverified), false);
      const call = { verb: 'PUBLISH', path: '/contract/denied.md', body: 'no\n' } as const;
      await assert.rejects(gateway.write(world, outsider, call), rejectsWith('ERR_WRITE_DENIED'));
      await assert.rejects(gateway.write(world, unverified, call), rejectsWith('ERR_EMAIL_UNVERIFIED'));
      assert.equal((await gateway.read(world, { verb: 'FETCH', path: call.path })).status, 'not-found');
    });

    it('sends reads without a token, even one the caller passes', async () => {
      const { gateway, world, readToken } = subject;
      const read = await gateway.read(world, {
        verb: 'FETCH',
        path: '/private/secret.md',
        metadata: { auth: readToken },
      });
      assert.equal(read.status, 'unauthorized');
    });

    it('refuses a write verb on read() and a read verb on write()', async () => {
      const { gateway, world, writer } = subject;
      await assert.rejects(gateway.read(world, { verb: 'PUBLISH', path: '/contract/x.md' }), TypeError);
      await assert.rejects(gateway.write(world, writer, { verb: 'FETCH', path: '/contract/x.md' }), TypeError);
    });
  });
}
