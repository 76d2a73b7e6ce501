// Progress of a backtest replay on a terminal: percent, tickers/s and ETA, drawn with cli-progress on
// stderr when it is a TTY, and nothing at all otherwise (CI logs, pipes). UI only: it reads wall
// time through the injected `now`, and nothing it computes ever reaches a report.
import cliProgress from 'cli-progress';

export interface ProgressReporter {
  /** `processed` ticker snapshots so far, out of `total` when known (the latest total given wins). */
  update(processed: number, total?: number): void;
  /** Draws the final state and releases the terminal; safe to call twice. */
  stop(): void;
}

/** The part of a stream the reporter needs (process.stderr satisfies it). */
export interface ProgressStream extends NodeJS.WritableStream {
  readonly isTTY?: boolean;
}

export interface ProgressOptions {
  /** Wall-clock milliseconds (e.g. `Date.now`), injected so the engine code stays clock-free. */
  readonly now: () => number;
  /** Defaults to process.stderr. */
  readonly stream?: ProgressStream;
  /** Initial total, when known. */
  readonly total?: number;
  readonly label?: string;
  /** Minimum wall time between two redraws (default 100 ms); updates in between are only counted. */
  readonly minIntervalMs?: number;
}

export interface ProgressState {
  readonly label: string;
  readonly processed: number;
  readonly total?: number;
  readonly elapsedMs: number;
}

const BAR_WIDTH = 24;

/** 1234567 → "1,234,567" (fixed format, independent of the locale). */
export function groupDigits(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Seconds → "h:mm:ss". */
export function clockText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** The text of one progress line (pure). */
export function progressLine(state: ProgressState): string {
  const { processed, total, elapsedMs } = state;
  const rate = elapsedMs > 0 ? (processed * 1000) / elapsedMs : 0;
  const parts: string[] = [];
  if (total !== undefined && total > 0) {
    const fraction = Math.min(1, processed / total);
    const filled = Math.round(fraction * BAR_WIDTH);
    parts.push(
      `${state.label} [${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}%`,
    );
    parts.push(`${groupDigits(processed)}/${groupDigits(total)} tickers`);
  } else {
    parts.push(`${state.label} ${groupDigits(processed)} tickers`);
  }
  parts.push(`${groupDigits(rate)} tickers/s`);
  if (total !== undefined && total > 0) {
    parts.push(rate > 0 ? `ETA ${clockText(Math.max(0, total - processed) / rate)}` : 'ETA --:--:--');
  }
  return parts.join(' | ');
}

const SILENT: ProgressReporter = { update: () => undefined, stop: () => undefined };

/** A progress bar on a TTY stream; a silent reporter when the stream is not a TTY. */
export function createProgress(opts: ProgressOptions): ProgressReporter {
  const stream = opts.stream ?? process.stderr;
  if (stream.isTTY !== true) return SILENT;
  const label = opts.label ?? 'backtest';
  const minInterval = opts.minIntervalMs ?? 100;
  const start = opts.now();
  let total = opts.total;
  let processed = 0;
  let lastDraw = -Infinity;
  let active = true;
  const bar = new cliProgress.SingleBar({
    stream,
    // The line is built here (progressLine) from our own counters and the injected clock.
    format: (_options, _params, payload: { text?: string }) => payload.text ?? '',
    hideCursor: true,
    clearOnComplete: false,
    linewrap: false,
  });
  const text = (): { text: string } => ({
    text: progressLine({
      label,
      processed,
      ...(total !== undefined ? { total } : {}),
      elapsedMs: opts.now() - start,
    }),
  });
  bar.start(total ?? 0, 0, text());
  return {
    update(p, t) {
      if (!active) return;
      processed = p;
      if (t !== undefined) total = t;
      const now = opts.now();
      if (now - lastDraw < minInterval) return;
      lastDraw = now;
      if (t !== undefined) bar.setTotal(t);
      bar.update(p, text());
    },
    stop() {
      if (!active) return;
      active = false;
      if (total !== undefined) bar.setTotal(total);
      bar.update(processed, text());
      bar.stop();
    },
  };
}
