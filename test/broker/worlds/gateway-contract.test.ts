/**
 * The WorldGateway contract (gateway-contract.ts) run against the production
 * gateway over real world servers, the per-caller view tools get, and every
 * gateway fake the other tests build on. The inline stubs that exist to make
 * one call fail (a world that refuses, a gateway that throws) are deliberately
 * outside the contract and stay in their tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBrokerConfig } from '../../../src/broker/config/index.ts';
import { callerGateway } from '../../../src/broker/worlds/caller-gateway.ts';
import { openWorldGateway } from '../../../src/broker/worlds/index.ts';
import { generateToken, hashToken } from '../../../src/protocol/token.ts';
import { signingKey } from '../config/fixtures.ts';
import { TestGateway } from '../graph/test-gateway.ts';
import { startTestStack } from '../mcp/helpers/fixture-gateway.ts';
import { MemoryGateway, memoryWorld } from '../mcp/helpers/memory-gateway.ts';
import { type GatewayUnderTest, worldGatewayContract } from './gateway-contract.ts';
import { person, startTestWorld, worldYaml, writeCaFile } from './world-servers.ts';

const writer = person('ann@example.com');
const outsider = person('bob@example.org');
/** The fixture worlds' tokens: the usual writer, and a reader for `/private/**`. */
const readerTokens = [
  { label: 'writer', paths: ['/**'], operations: ['publish'] },
  { label: 'reader', paths: ['/private/**'], operations: ['read'] },
];

async function markWorldGateway(): Promise<GatewayUnderTest> {
  const readToken = generateToken();
  const root = await mkdtemp(join(tmpdir(), 'gateway-contract-'));
  const world = await startTestWorld(
    'contract',
    `[tokens.reader]\nhash = "${hashToken(readToken)}"\npaths = ["/private/**"]\noperations = ["read"]\n`,
  );
  const config = parseBrokerConfig(
    `
server:
  addr: "127.0.0.1:0"
  publicURL: http://127.0.0.1:8080
  mcp: { addr: "127.0.0.1:0", firstMintMaxAttempts: 10, firstMintInitialBackoff: 100ms, firstMintMaxBackoff: 1s }
storage: { backend: file, dir: ${JSON.stringify(join(root, 'state'))} }
worldDialer: { caFile: ${JSON.stringify(await writeCaFile(root))}, dialTimeout: 1s, requestTimeout: 5s }
worlds:
${worldYaml(world, `    allow: { emails: [${writer.email}] }`)}
`,
    { BROKER_SIGNING_KEY: signingKey },
  );
  const gateway = await openWorldGateway(config);
  return {
    gateway,
    world: 'contract',
    writer,
    outsider,
    readToken,
    async close() {
      await gateway.close();
      await world.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

worldGatewayContract('MarkWorldGateway over real world servers', markWorldGateway);

worldGatewayContract("callerGateway (one caller's view of the production gateway)", async () => {
  const shared = await markWorldGateway();
  return { ...shared, gateway: callerGateway(shared.gateway, writer) };
});

worldGatewayContract('FixtureGateway (MCP tool tests)', async () => {
  const stack = await startTestStack(['contract'], { writers: { contract: [writer.email] }, tokens: readerTokens });
  const readToken = stack.worlds.contract!.tokens.reader!;
  return { gateway: stack.gateway, world: 'contract', writer, outsider, readToken, close: () => stack.close() };
});

worldGatewayContract('TestGateway (graph tests)', async () => {
  const gateway = await TestGateway.start([{ name: 'contract', tokens: readerTokens }]);
  gateway.writers.add(writer.email);
  const readToken = gateway.fixtures.get('contract')!.tokens.reader!;
  return { gateway, world: 'contract', writer, outsider, readToken, close: () => gateway.close() };
});

worldGatewayContract('MemoryGateway (formatting and merging tests)', async () => {
  const readToken = generateToken();
  const gateway = new MemoryGateway({ contract: memoryWorld(readToken) }, { writers: [writer.email] });
  return { gateway, world: 'contract', writer, outsider, readToken, close: () => gateway.close() };
});
