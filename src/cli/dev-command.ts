import { resolve } from 'node:path';
import { startDevStack } from '../dev/stack.ts';
import { jsonLogger, logLevel, logOptions } from './json-logger.ts';
import { stopGracefully, waitForSignal } from './signals.ts';
import { errorCodes } from '../errors/fetch-failure.ts';
import { commandArgs } from './command-args.ts';
import { flagOrEnv, numberFlag } from './number-flag.ts';
import { UsageError } from './usage-error.ts';
import { loopbackNames } from '../transport/loopback.ts';

const help = `demarkus-broker dev [--data DIR] [--host HOST] [--port PORT] [--broker-port PORT] [--email EMAIL]

Runs the local stack: worlds root, team-a and team-b on consecutive ports,
seeded on first run, and the broker in front of them. Development only:
self-signed world certificate, one shared publisher token, a printed MCP token.

  --data DIR          state directory (default ./data)
  --host HOST         listen address on this computer: 127.0.0.1 (default) or localhost; never
                      one other computers reach, where anyone could sign in as anyone
  --port PORT         first world's port (default 6401; env DEMARKUS_DEV_PORT)
  --broker-port PORT  broker issuer (sign-in) port; MCP, the IdP and health/metrics take the
                      next three (default 8080; env DEMARKUS_DEV_BROKER_PORT)
  --email EMAIL       identity of the printed MCP token (default dev@example.com)

The broker signs people in through an embedded development identity provider
on the port after the MCP listener (any email address, no password). Sign in
from a terminal with: demarkus-broker login --issuer http://127.0.0.1:8080`;

export async function runDevCommand(args: string[]): Promise<number> {
  const parsed = commandArgs(
    args,
    {
      data: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'broker-port': { type: 'string' },
      email: { type: 'string' },
    },
    help,
  );
  if (parsed === null) return 0;
  const { values } = parsed;
  const host = values.host ?? '127.0.0.1';
  // The development IdP signs in any email address without a password: on an address other
  // computers reach, anyone there would be anyone. Refused before anything listens
  // (docs/decisions.md); the broker would refuse its plain-http IdP there too, but only after the
  // worlds and the IdP had started on that address.
  if (!loopbackNames.includes(host))
    throw new UsageError(
      `--host ${host} is not this computer's loopback address: the development stack signs in anyone as anyone without a password, so it listens only on 127.0.0.1 or localhost; to use it from another computer, forward a port to it (e.g. ssh -L 8080:127.0.0.1:8080 -L 8081:127.0.0.1:8081 -L 8082:127.0.0.1:8082)`,
    );
  const email = values.email ?? 'dev@example.com';
  // Three worlds from --port, and the broker's issuer, its MCP listener, the IdP and the broker's
  // management listener from --broker-port: each run must fit under 65536.
  const basePort = numberFlag(...flagOrEnv('--port', values.port, 'DEMARKUS_DEV_PORT'), { min: 1, max: 65533 }, 6401);
  const brokerPort = numberFlag(
    ...flagOrEnv('--broker-port', values['broker-port'], 'DEMARKUS_DEV_BROKER_PORT'),
    { min: 1, max: 65532 },
    8080,
  );
  const dataDir = resolve(values.data ?? 'data');
  const stack = await startDevStack({
    dataDir,
    host,
    basePort,
    brokerPort,
    devEmail: email,
    log: jsonLogger('dev'),
    // Requests stay out of a terminal that shows the banner; refusals and world failures (warn) do not.
    brokerLogger: logOptions('broker', logLevel('warn')),
  }).catch((error: unknown) => {
    throw portHint(error, basePort, brokerPort);
  });
  const stopped = waitForSignal();
  printWelcome(stack, dataDir, email);
  // Ctrl-C stops at once: no drain delay (no load balancer to leave) and a short bound for what
  // is in flight, so an MCP client's open event stream does not hold the terminal.
  await stopGracefully(stopped, () => stack.close({ drainDelayMs: 0, graceMs: devShutdownGraceMs }));
  return 0;
}

/** How long `npm start` lets requests in flight finish after Ctrl-C. */
const devShutdownGraceMs = 1000;

function printWelcome(stack: Awaited<ReturnType<typeof startDevStack>>, dataDir: string, email: string): void {
  const mark = 'npx demarkus-broker mark';
  const ca = `--ca ${stack.certFile}`;
  const first = stack.worlds[0]!;
  const issuer = stack.broker.trust.issuer;
  const lines = [
    '',
    'demarkus local stack (development only)',
    '',
    ...stack.worlds.map(
      (w) => `  world ${w.name.padEnd(7)} mark://${w.address}  ${w.seeded > 0 ? `(seeded ${w.seeded} documents)` : ''}`,
    ),
    '',
    `  data:            ${dataDir}`,
    `  TLS certificate: ${stack.certFile} (self-signed; pass it with --ca, or use --insecure)`,
    `  publish token:   ${dataDir}/dev-token`,
    '',
    `  broker MCP:      ${stack.mcpUrl}`,
    `  broker health:   http://${stack.broker.management.host}:${stack.broker.management.port}/readyz (metrics at /metrics)`,
    `  broker config:   ${stack.brokerConfigFile}`,
    `  sign-in:         ${issuer} (OAuth metadata at ${issuer}/.well-known/oauth-authorization-server)`,
    `  development IdP: ${stack.idp.issuer}  DEVELOPMENT ONLY: any email address signs in, no password`,
    '',
    'Sign in from a terminal (device flow), then check who you are:',
    `  npx demarkus-broker login --issuer ${issuer}`,
    `  npx demarkus-broker whoami`,
    'MCP clients that support OAuth sign in by themselves: give them only the URL below.',
    '',
    `Connect an MCP client (development token for ${email}, valid 12 hours):`,
    `  claude mcp add --transport http demarkus ${stack.mcpUrl} --header "Authorization: Bearer ${stack.mcpToken}"`,
    '  or, in a client config file:',
    `  { "mcpServers": { "demarkus": { "type": "http", "url": "${stack.mcpUrl}", "headers": { "Authorization": "Bearer ${stack.mcpToken}" } } } }`,
    `  a fresh token: npx demarkus-broker token --config ${stack.brokerConfigFile} --email you@example.com --ttl 12h`,
    '',
    'Talk to a world directly:',
    `  ${mark} fetch   mark://${first.address}/index.md ${ca}`,
    `  ${mark} list    mark://${first.address}/adr ${ca}`,
    `  ${mark} lookup  mark://${stack.worlds[1]!.address}/ --query auth ${ca}`,
    `  ${mark} lookup  mark://${stack.worlds[2]!.address}/ --query "every query term" --match body ${ca}`,
    `  ${mark} publish mark://${first.address}/notes/hello.md --token "$(cat ${dataDir}/dev-token)" --body "# Hello" --expected-version 0 ${ca}`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ];
  console.log(lines.join('\n'));
}

/** A port that is taken, said plainly with the flags that move the stack elsewhere. */
function portHint(error: unknown, basePort: number, brokerPort: number): unknown {
  const codes = errorCodes(error);
  const inUse = codes.includes('EADDRINUSE');
  if (!inUse && !codes.includes('ERR_LISTEN_FAILED')) return error;
  const message = error instanceof Error ? error.message : String(error);
  const why = inUse
    ? 'the port is in use: is another npm start (or demarkus-broker dev) running?'
    : 'the address cannot be used';
  const [nextWorld, nextBroker] = [basePort + 100, brokerPort + 100];
  return new Error(
    `${message} (${why}). Stop the other one, or run this one on other ports: npm start -- --port ${nextWorld} --broker-port ${nextBroker} (worlds use ${basePort} to ${basePort + 2}, the broker ${brokerPort} to ${brokerPort + 3})`,
    { cause: error },
  );
}
