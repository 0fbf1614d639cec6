/**
 * One owner per deadline: the world connection gives the transport a budget
 * for the whole call and a shorter timeout per attempt, so the transport's
 * retry of a stalled read runs inside the broker (src/transport/client.ts).
 * The world here is a real QUIC listener that never answers the first request
 * it receives and answers every later one; the read goes through the broker's
 * gateway and the mark_fetch tool.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBrokerConfig } from '../../../src/broker/config/index.ts';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { markFetch } from '../../../src/broker/mcp/tools/fetch.ts';
import { type MarkWorldGateway, openWorldGateway } from '../../../src/broker/worlds/index.ts';
import { encodeResponse } from '../../../src/protocol/response.ts';
import { parseRequest } from '../../../src/protocol/request.ts';
import { startMarkListener, type MarkListener } from '../../../src/transport/server.ts';
import { devCertificate, gate } from '../../transport/helpers.ts';
import { signingKey } from '../config/fixtures.ts';
import { toolContext } from '../mcp/helpers/context.ts';

describe('a read the world stalls once is retried by the transport, through the broker', () => {
  let dir: string;
  let world: MarkListener;
  let gateway: MarkWorldGateway;
  const stalled = gate();
  const seen: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'read-retry-'));
    const tls = await devCertificate();
    await writeFile(join(dir, 'ca.pem'), tls.cert);
    world = await startMarkListener({
      host: '127.0.0.1',
      port: 0,
      tls,
      handler: async (request) => {
        const { verb, path } = parseRequest(request.bytes);
        seen.push(`${verb} ${path}`);
        if (seen.length === 1) await stalled.promise;
        return encodeResponse({
          status: 'ok',
          metadata: { version: '3', modified: '2026-01-08T12:00:00Z' },
          body: new TextEncoder().encode('# Answered\n\nOn the second attempt.\n'),
        });
      },
    });
    const config = parseBrokerConfig(
      `
server:
  addr: "127.0.0.1:0"
  publicURL: http://127.0.0.1:8080
  mcp: { addr: "127.0.0.1:0" }
storage: { backend: file, dir: ${JSON.stringify(join(dir, 'state'))} }
worldDialer: { caFile: ${JSON.stringify(join(dir, 'ca.pem'))}, dialTimeout: 5s, requestTimeout: 60s, attemptTimeout: 2s }
worlds:
  - name: team-a
    internalAddress: "127.0.0.1:${world.port}"
    serverName: world.test
    tokensFile: ${JSON.stringify(join(dir, 'tokens.toml'))}
    defaultToken: { paths: ["/**"] }
`,
      { BROKER_SIGNING_KEY: signingKey },
    );
    gateway = await openWorldGateway(config);
  });

  after(async () => {
    stalled.open();
    await gateway.close();
    await world.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers the agent from the second attempt', async () => {
    const result = await runTool(markFetch, { url: 'mark://team-a/doc.md' }, toolContext(gateway));
    assert.equal(result.isError, undefined, result.text);
    assert.match(result.text, /On the second attempt\./);
    // The first FETCH never got an answer; a later attempt of the same read did.
    assert.ok(seen.length >= 2, `the world saw ${seen.length} request(s)`);
    assert.deepEqual(new Set(seen), new Set(['FETCH /doc.md']));
  });
});
