/**
 * Threat: a write into a read-protected tree gets through because the world
 * did not answer the broker's read check plainly. Before every write the
 * gateway asks the world, tokenless, whether the caller may read the target
 * (src/broker/worlds/read-right-probe.ts), then writes with the broker's own
 * token, which covers `/**`. Only `unauthorized` and `not-permitted` stopped
 * the write, so a check answered `rate-limited` (a busy world: the broker is
 * one address for every caller, /tmp review script probe-ratelimit.ts got a
 * write through that way), `server-error`, `bad-request` or a status this
 * broker does not know let it through on the broker's rights.
 *
 * The attack worked before the fix: every write below was `created` under
 * `/private/`. The world is a real one (its store and tokens.toml) behind a
 * real QUIC listener that answers the read check itself with the status under
 * test and hands every other request to the world, as a world under load
 * answers the next request rate-limited.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseBrokerConfig } from '../../src/broker/config/index.ts';
import { type MarkWorldGateway, openWorldGateway, WorldGatewayError } from '../../src/broker/worlds/index.ts';
import { encodeRequest, parseRequest } from '../../src/protocol/request.ts';
import { encodeResponse, parseResponse } from '../../src/protocol/response.ts';
import { hashToken } from '../../src/protocol/token.ts';
import { addressKey } from '../../src/transport/address-key.ts';
import { startMarkListener, type MarkListener } from '../../src/transport/server.ts';
import { openWorld, type World } from '../../src/world/world.ts';
import { person, writeCaFile } from '../broker/worlds/world-servers.ts';
import { signingKey } from '../broker/config/fixtures.ts';
import { pinnedNow, testTls } from '../world/world-fixture.ts';

const readerToken = 'reader-token-for-the-private-tree';
const ann = person('ann@example.com');

describe('security: a write goes through only when the world said the caller may read its target', () => {
  let dir: string;
  let world: World;
  let listener: MarkListener;
  let gateway: MarkWorldGateway;
  /** What the listener answers the read check with; null hands it to the world. */
  let checkAnswer: string | null = null;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'write-read-check-'));
    const tokensFile = join(dir, 'tokens.toml');
    await writeFile(
      tokensFile,
      `[tokens.private-readers]\nhash = "${hashToken(readerToken)}"\npaths = ["/private/**"]\noperations = ["read"]\n`,
    );
    world = await openWorld({ root: join(dir, 'root'), tokensFile, name: 'team-a', now: pinnedNow });
    listener = await startMarkListener({
      host: '127.0.0.1',
      port: 0,
      tls: await testTls(),
      handler: async (incoming, peer) => {
        const { verb, path } = parseRequest(incoming.bytes);
        if (checkAnswer !== null && verb === 'FETCH' && path.endsWith('/v2147483647'))
          return encodeResponse({
            status: checkAnswer,
            metadata: {},
            body: new TextEncoder().encode(`# ${checkAnswer}\n`),
          });
        return world.serve({ ...incoming, from: addressKey(peer.host) });
      },
    });
    const config = parseBrokerConfig(
      `
server:
  addr: "127.0.0.1:0"
  publicURL: http://127.0.0.1:8080
  mcp: { addr: "127.0.0.1:0", firstMintMaxAttempts: 10, firstMintInitialBackoff: 100ms, firstMintMaxBackoff: 1s }
storage: { backend: file, dir: ${JSON.stringify(join(dir, 'state'))} }
worldDialer: { caFile: ${JSON.stringify(await writeCaFile(dir))}, dialTimeout: 2s, requestTimeout: 10s }
worlds:
  - name: team-a
    internalAddress: "127.0.0.1:${listener.port}"
    serverName: localhost
    tokensFile: ${JSON.stringify(tokensFile)}
    defaultToken: { paths: ["/**"] }
`,
      { BROKER_SIGNING_KEY: signingKey },
    );
    gateway = await openWorldGateway(config);
  });

  after(async () => {
    await gateway?.close();
    await listener?.close();
    await world?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The protected document as its reader sees it, straight from the world. */
  const privateStatus = async (path: string) =>
    parseResponse(
      await world.handle({
        bytes: encodeRequest({ verb: 'FETCH', path, metadata: { auth: readerToken }, body: new Uint8Array() }),
      }),
    ).status;

  it('writes where the world lets the caller read, and refuses the protected tree (the check answered plainly)', async () => {
    checkAnswer = null;
    const open = await gateway.write('team-a', ann, { verb: 'PUBLISH', path: '/open.md', body: '# Open\n' });
    assert.equal(open.status, 'created');
    await assert.rejects(
      gateway.write('team-a', ann, { verb: 'PUBLISH', path: '/private/plan.md', body: '# Plan\n' }),
      (error: unknown) => error instanceof WorldGatewayError && error.code === 'ERR_WRITE_READ_PROTECTED',
    );
    assert.equal(await privateStatus('/private/plan.md'), 'not-found');
  });

  for (const status of ['rate-limited', 'server-error', 'bad-request', 'teapot']) {
    it(`refuses the write, retryably, when the read check is answered ${status}`, async () => {
      checkAnswer = status;
      for (const verb of ['PUBLISH', 'APPEND'] as const) {
        const path = `/private/${status}-${verb.toLowerCase()}.md`;
        await assert.rejects(
          gateway.write('team-a', ann, {
            verb,
            path,
            body: '# Injected\n',
            ...(verb === 'APPEND' ? { metadata: { 'expected-version': '1' } } : {}),
          }),
          (error: unknown) => {
            assert.ok(error instanceof WorldGatewayError, String(error));
            assert.equal(error.code, 'ERR_WORLD_UNAVAILABLE');
            assert.match(error.message, new RegExp(`answered ${status}.*nothing was written.*try again`, 's'));
            return true;
          },
        );
        assert.equal(await privateStatus(path), 'not-found', `${verb} ${path} reached the store`);
      }
      // A readable target is no exception: unchecked means unwritten.
      await assert.rejects(
        gateway.write('team-a', ann, { verb: 'PUBLISH', path: '/open.md', body: '# Changed\n' }),
        (error: unknown) => error instanceof WorldGatewayError && error.code === 'ERR_WORLD_UNAVAILABLE',
      );
    });
  }
});
