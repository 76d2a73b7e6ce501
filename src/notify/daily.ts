// Calls `fn` every day at `utcHour`:00 UTC (wall clock). The timer never keeps the process alive.
export function everyDayAt(utcHour: number, fn: () => void, now: () => number = Date.now): () => void {
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    const t = now();
    const d = new Date(t);
    let next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), utcHour);
    if (next <= t) next += 86_400_000;
    timer = setTimeout(() => {
      try {
        fn();
      } finally {
        schedule();
      }
    }, next - t);
    timer.unref();
  };
  schedule();
  return () => clearTimeout(timer);
}
