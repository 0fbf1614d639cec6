/**
 * How the long-running commands (broker, world, dev) stop: the first SIGTERM or
 * SIGINT starts a graceful shutdown, a second one ends the process at once.
 */

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** Resolves with the first SIGINT or SIGTERM. */
export function waitForSignal(): Promise<StopSignal> {
  return new Promise((resolvePromise) => {
    const onInt = () => done('SIGINT');
    const onTerm = () => done('SIGTERM');
    const done = (signal: StopSignal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolvePromise(signal);
    };
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}

/**
 * While a graceful shutdown runs, another SIGINT or SIGTERM exits at once, with
 * the status a shell gives a process a signal ended (128 + its number: 130, 143).
 * Returns the function that stops listening, for when the shutdown is done.
 */
function exitOnNextSignal(onExit: (signal: StopSignal) => void = () => {}): () => void {
  const exitNow = (signal: StopSignal) => {
    onExit(signal);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const onInt = () => exitNow('SIGINT');
  const onTerm = () => exitNow('SIGTERM');
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}

/** The two lines a stop logs; the command logs its own "shutting down" line in `close`, with what it waits for. */
type StopLog = {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
};

/**
 * The stop of a long-running command: waits for `stopped` (a `waitForSignal`
 * made before the command announced itself, so an early signal is not lost),
 * then runs `close` while a second signal exits at once, and logs "stopped".
 */
export async function stopGracefully(
  stopped: Promise<StopSignal>,
  close: (signal: StopSignal) => Promise<void>,
  log?: StopLog,
): Promise<void> {
  const signal = await stopped;
  const stopWatching = exitOnNextSignal((again) => log?.warn({ signal: again }, 'second signal: exiting now'));
  try {
    await close(signal);
  } finally {
    stopWatching();
  }
  log?.info({}, 'stopped');
}
