import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { mintBrokerToken } from '../../../src/broker/auth/mint-broker-token.ts';
import { generateSigningKeyPem, loadSigningKey, type SigningKey } from '../../../src/broker/auth/signing-key.ts';
import { createBearerVerifier } from '../../../src/broker/auth/verify-bearer.ts';
import { closeWithin } from '../../../src/broker/http/close-within.ts';
import { createMcpListener, type McpListener, type McpListenerOptions } from '../../../src/broker/http/mcp-listener.ts';
import type { McpDefinitions } from '../../../src/broker/http/register-definitions.ts';
import type { ToolDefinition } from '../../../src/broker/mcp/definitions.ts';
import { defineTool } from '../../../src/broker/mcp/run-tool.ts';
import { WorldGatewayError, type WorldGateway, type WorldInfo } from '../../../src/broker/worlds/gateway.ts';
import { generateToken } from '../../../src/protocol/token.ts';
import { MemoryGateway, memoryWorld } from '../mcp/helpers/memory-gateway.ts';

export const issuer = 'http://127.0.0.1:7000';

const worlds: WorldInfo[] = [
  { name: 'alpha', address: '127.0.0.1:6309', source: 'config' },
  { name: 'beta', address: '127.0.0.1:6310', source: 'config' },
];

/** The listener tests never read a world; their gateway is the contract-checked memory fake. */
export const listingGateway: WorldGateway = new MemoryGateway({
  alpha: memoryWorld(generateToken()),
  beta: memoryWorld(generateToken()),
});

const echo = defineTool<{ text: z.ZodString }>({
  name: 'echo',
  title: 'Echo',
  description: 'Returns its text argument with the caller and a per-session call count.',
  inputSchema: { text: z.string() },
  readOnly: true,
  openWorld: false,
  handler: async ({ text }, ctx) => {
    const calls = (ctx.session.get<number>('calls') ?? 0) + 1;
    ctx.session.set('calls', calls);
    return { text: `${text} from ${ctx.identity.email} call ${calls} session ${ctx.session.id ?? 'none'}` };
  },
});

const refuse: ToolDefinition = {
  name: 'refuse',
  title: 'Refuse',
  description: 'Always answers with a tool error.',
  inputSchema: {},
  readOnly: false,
  destructive: false,
  idempotent: true,
  openWorld: false,
  handler: async () => ({ text: 'status: not-permitted', isError: true }),
};

const explode: ToolDefinition = {
  name: 'explode',
  title: 'Explode',
  description: 'Throws; the broker must turn that into a tool error.',
  inputSchema: {},
  readOnly: true,
  openWorld: false,
  handler: async () => {
    throw new Error('secret internal detail');
  },
};

const unreachable: ToolDefinition = {
  name: 'unreachable',
  title: 'Unreachable',
  description: 'Throws a gateway error, whose text is meant for agents.',
  inputSchema: {},
  readOnly: true,
  openWorld: false,
  handler: async () => {
    throw new WorldGatewayError('ERR_WORLD_UNAVAILABLE', 'alpha', 'world "alpha" is unavailable');
  },
};

export const definitions: McpDefinitions = {
  tools: [echo, refuse, explode, unreachable],
  resourceTemplates: [
    {
      name: 'document',
      uriTemplate: 'mark://{world}/{+path}',
      description: 'A document of a world.',
      mimeType: 'text/markdown',
      read: async (uri, ctx) => {
        const world = new URL(uri.replace(/#.*$/, '')).hostname;
        if (ctx.gateway.get(world) === undefined)
          throw new WorldGatewayError('ERR_WORLD_NOT_FOUND', world, `unknown world "${world}"`);
        return { uri, mimeType: 'text/markdown', text: `# ${uri} for ${ctx.identity.email}` };
      },
    },
  ],
  resources: () =>
    worlds.map((w) => ({
      name: `${w.name} index`,
      uri: `mark://${w.name}/index.md`,
      description: `Index of ${w.name}`,
      mimeType: 'text/markdown',
    })),
  prompts: [
    {
      name: 'orient',
      title: 'Orient',
      description: 'Where to start.',
      arguments: [{ name: 'topic', description: 'What you are looking for', required: false }],
      render: (args, ctx) => ({
        description: 'Orientation',
        text: `worlds: ${ctx.worlds.map((world) => world.name).join(',')}; topic: ${args.topic ?? '-'}`,
      }),
    },
  ],
};

export type Harness = {
  url: string;
  resource: string;
  key: SigningKey;
  listener: McpListener;
  token: (email?: string, extra?: { ttlSeconds?: number; audience?: string }) => Promise<string>;
  close: () => Promise<void>;
};

/**
 * A real MCP listener on 127.0.0.1 with a fresh broker key; `overrides` adjust
 * any option, `bearer` the verifier's (its clock leeway: 60 s unless given).
 */
export async function startListener(
  overrides: Partial<McpListenerOptions> = {},
  bearer: { clockToleranceSeconds?: number } = {},
): Promise<Harness> {
  const key = loadSigningKey(generateSigningKeyPem());
  // The public URL is only known after listen(); loopback hosts are allowed by default anyway.
  const publicUrl = 'http://127.0.0.1';
  const resource = `${publicUrl}/mcp`;
  const verifyBearer = createBearerVerifier({
    broker: { publicKey: key.publicKey, kid: key.kid, issuer, audiences: [resource] },
    ...bearer,
  });
  const listener = await createMcpListener({
    publicUrl,
    authorizationServers: [issuer],
    verifyBearer,
    server: { serverInfo: { name: 'demarkus-broker-test', version: '0.0.0' }, definitions, gateway: listingGateway },
    ...overrides,
  });
  await listener.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (listener.app.server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    resource,
    key,
    listener,
    token: (email = 'ada@example.com', extra = {}) =>
      mintBrokerToken({
        key,
        issuer,
        audience: extra.audience ?? resource,
        email,
        ...(extra.ttlSeconds ? { ttlSeconds: extra.ttlSeconds } : {}),
      }),
    // As the broker closes it with no grace: an open event stream does not hold the close (close-within.ts).
    close: () => closeWithin(listener.app, 0),
  };
}
