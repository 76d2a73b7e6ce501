// Market data for the executor benchmarks: the real one-second polls of a bundled recording, laid on
// a regular grid of `stepMs` from `startMs` and cycled when a run needs more polls than the file
// holds. Only the time grid is synthetic; every ticker is as recorded.
import type { RecordedPoll } from '../src/core/market.ts';
import { readRecording } from '../src/market/recording/reader.ts';

/** Bundled, small, two symbols (cmt_btcusdt, cmt_ethusdt), one poll per second. */
export const EXECUTOR_RECORDING = 'data/binance-btc-eth-20240719-1s.ndjson.gz';

export async function loadPolls(path: string, max = Number.POSITIVE_INFINITY): Promise<RecordedPoll[]> {
  const out: RecordedPoll[] = [];
  for await (const p of readRecording(path)) {
    if (out.length >= max) break;
    out.push(p);
  }
  if (out.length === 0) throw new Error(`${path} holds no polls`);
  return out;
}

/** The i-th poll of the grid: the recording's poll i (cycled), stamped at startMs + i × stepMs. */
export function pollAt(
  polls: readonly RecordedPoll[],
  i: number,
  startMs: number,
  stepMs = 1_000,
): RecordedPoll {
  const p = polls[i % polls.length];
  if (p === undefined) throw new RangeError('no polls');
  return { t: startMs + i * stepMs, tickers: p.tickers };
}
