/**
 * The machine's floor for a fan-out: `count` processes that each echo a UDP
 * datagram, and one call that sends a datagram to each of the first `n` and
 * waits for every answer. No QUIC, no parsing, no store: what is left is the
 * system calls and the waking of `n` processes on this machine's cores, which
 * any fan-out over processes pays whatever its code (docs/benchmarks.md,
 * "What a pause costs"). `bench/fan-out.ts` reports it beside the tool calls.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { once } from 'node:events';

/** The echo process: binds a loopback port, prints it, answers every datagram with itself. */
const echoSource = `
import dgram from 'node:dgram';
const socket = dgram.createSocket('udp4');
socket.on('message', (message, from) => socket.send(message, from.port, from.address));
socket.bind(0, '127.0.0.1', () => process.stdout.write(socket.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0)).resume();
`;

export interface UdpEchoFleet {
  /** Sends one datagram to each of the first `n` echo processes and resolves when all answered. */
  fanOut(n: number): Promise<void>;
  stop(): Promise<void>;
}

async function startEcho(): Promise<{ child: ChildProcess; port: number }> {
  // stdin stays a pipe so the echo exits with this process, even if it dies first.
  const child = spawn(process.execPath, ['--input-type=module', '-e', echoSource], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await Promise.race([
    once(child.stdout!, 'data'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`udp echo process exited with ${code} before it listened`);
    }),
  ])) as [Buffer];
  const port = Number.parseInt(line.toString(), 10);
  if (!Number.isInteger(port)) throw new Error(`udp echo process printed ${JSON.stringify(line.toString())}`);
  return { child, port };
}

export async function startUdpEchoFleet(count: number): Promise<UdpEchoFleet> {
  const echoes = await Promise.all(Array.from({ length: count }, startEcho));
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  // About the size of a LOOKUP request datagram (75 bytes of QUIC) with room to spare.
  const payload = Buffer.alloc(128, 0x6d);
  let waiting = 0;
  let allAnswered: (() => void) | undefined;
  socket.on('message', () => {
    waiting -= 1;
    if (waiting === 0) allAnswered?.();
  });
  return {
    fanOut(n: number): Promise<void> {
      if (!Number.isInteger(n) || n < 1 || n > echoes.length)
        throw new RangeError(`fan-out of ${n} over ${echoes.length}`);
      if (waiting !== 0) throw new Error('one fan-out at a time');
      return new Promise<void>((resolve, reject) => {
        // Loopback seldom drops a datagram, but a lost one must fail the run, not hang it.
        const lost = setTimeout(() => {
          waiting = 0;
          reject(new Error(`udp fan-out of ${n}: an answer did not arrive within 5 s`));
        }, 5_000);
        waiting = n;
        allAnswered = () => {
          clearTimeout(lost);
          resolve();
        };
        for (let i = 0; i < n; i++) socket.send(payload, echoes[i]!.port, '127.0.0.1');
      });
    },
    async stop(): Promise<void> {
      socket.close();
      for (const { child } of echoes) child.stdin?.end();
      await Promise.all(echoes.map(({ child }) => (child.exitCode === null ? once(child, 'exit') : undefined)));
    },
  };
}
