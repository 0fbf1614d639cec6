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
export function exitOnNextSignal(onExit: (signal: StopSignal) => void = () => {}): () => void {
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
