// Process signals of a run: the first SIGINT/SIGTERM asks for a graceful stop, a second one forces the
// exit at once (the store is consistent at every instant: each SQLite commit is synchronous, so there
// is nothing to flush); SIGHUP reopens the log file (logrotate).
export interface SignalHandlers {
  readonly onStop: (signal: NodeJS.Signals) => void;
  readonly onForce: (signal: NodeJS.Signals) => void;
  readonly onHangup?: () => void;
}

/** Installs the handlers; returns a function that removes them. */
export function installSignals(h: SignalHandlers): () => void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      h.onForce(signal);
      return;
    }
    stopping = true;
    h.onStop(signal);
  };
  const hangup = (): void => h.onHangup?.();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', hangup);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    process.off('SIGHUP', hangup);
  };
}

/** The conventional exit code of a process ended by a signal (128 + its number). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1;
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (s: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(s);
    };
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
  });
}
