/**
 * What an agent reads when a tool fails is a public sentence, never private
 * detail: written as the attacks first (an internal address and a secret in
 * a backend's message both reached the tool result), kept as the guard.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBrokerConfig } from '../../../src/broker/config/index.ts';
import { KubernetesBackendError } from '../../../src/broker/kubernetes/errors.ts';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { agentMessage } from '../../../src/broker/mcp/tool-result.ts';
import { markFetch } from '../../../src/broker/mcp/tools/fetch.ts';
import type { WorldGateway } from '../../../src/broker/worlds/gateway.ts';
import { type MarkWorldGateway, openWorldGateway } from '../../../src/broker/worlds/index.ts';
import { StoreError } from '../../../src/world/store/errors.ts';
import { signingKey } from '../config/fixtures.ts';
import { toolContext } from './helpers/context.ts';

/** A UDP port on 127.0.0.1 that nobody listens on any more. */
async function deadPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

describe('tool errors an agent reads carry no private detail', () => {
  let dir: string;
  let port: number;
  let gateway: MarkWorldGateway;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-error-leak-'));
    port = await deadPort();
    const config = parseBrokerConfig(
      `
server:
  addr: "127.0.0.1:0"
  publicURL: http://127.0.0.1:8080
  mcp: { addr: "127.0.0.1:0" }
storage: { backend: file, dir: ${JSON.stringify(dir)} }
worldDialer: { insecureSkipVerify: true, dialTimeout: 200ms, requestTimeout: 5s, failureThreshold: 5, cooldown: 1m }
worlds:
  - name: team-a
    internalAddress: "127.0.0.1:${port}"
    tokensFile: ${JSON.stringify(join(dir, 'tokens.toml'))}
    defaultToken: { paths: ["/**"] }
`,
      { BROKER_SIGNING_KEY: signingKey },
    );
    gateway = await openWorldGateway(config);
  });

  after(async () => {
    await gateway.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("an unreachable world's tool error names the world, not its internal address", async () => {
    const result = await runTool(markFetch, { url: 'mark://team-a/doc.md' }, toolContext(gateway));
    assert.equal(result.isError, true);
    assert.match(result.text, /team-a/);
    assert.doesNotMatch(result.text, new RegExp(`127\\.0\\.0\\.1|:${port}\\b`));
  });

  it("a backend failure's message (which may hold a secret) is replaced by a neutral sentence", async () => {
    const secret = 'token=tok_live_8f3a9c';
    const failing: WorldGateway = {
      list: () => [{ name: 'team-a', address: 'team-a.demarkus.svc.cluster.local:6309', source: 'config' }],
      get: (name) => (name === 'team-a' ? failing.list()[0] : undefined),
      canWrite: () => true,
      read: async () => {
        throw new KubernetesBackendError('ERR_K8S_API', 'team-a/team-a-tokens', `PATCH refused: ${secret}`);
      },
      write: async () => {
        throw new Error('unused');
      },
      close: async () => {},
    };
    const result = await runTool(markFetch, { url: 'mark://team-a/doc.md' }, toolContext(failing));
    assert.equal(result.isError, true);
    assert.doesNotMatch(result.text, /tok_live|PATCH|team-a-tokens/);
    assert.equal(result.text, 'fetch failed: internal error');
  });

  it('only allowlisted codes pass their message through; other coded errors read as internal', () => {
    assert.equal(agentMessage(new StoreError('ERR_INTEGRITY', 'hash mismatch at /srv/data/x.md')), 'internal error');
    assert.equal(agentMessage(new Error('ERR_ lookalike')), 'internal error');
    assert.equal(agentMessage(Object.assign(new Error('forged'), { code: 'ERR_TOOL_STEP' })), 'internal error');
  });
});
