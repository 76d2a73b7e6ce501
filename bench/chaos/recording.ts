// The market of a chaos run: the bundled 5-minute recording played forwards, then backwards, then
// forwards again (...) until it covers the time needed, with time always moving on. Prices stay
// continuous at every turn (no jump that a loop would make), so any run length has market movement.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { RecordedPoll, WireTicker } from '../../src/core/market.ts';
import { readRecording } from '../../src/market/recording/reader.ts';

export interface PingPongResult {
  readonly polls: number;
  /** Recorded time covered, first to last poll (ms). */
  readonly spanMs: number;
}

/** Shifts a wire ticker's exchange timestamp so it keeps its lag behind the poll time `t`. */
function retime(ticker: WireTicker, origT: number, t: number): WireTicker {
  const ts = Number(ticker.timestamp);
  if (!Number.isFinite(ts)) return ticker;
  return { ...ticker, timestamp: String(t - (origT - ts)) };
}

/**
 * Writes `dest` (.ndjson) from `source`: segments alternate forwards and backwards until the
 * recording spans at least `minSpanMs`. The gaps between polls are those of the source.
 */
export async function writePingPongRecording(
  source: string,
  dest: string,
  minSpanMs: number,
): Promise<PingPongResult> {
  const polls: RecordedPoll[] = [];
  for await (const p of readRecording(source)) polls.push(p);
  const first = polls[0];
  if (first === undefined || polls.length < 2) throw new Error(`${source}: needs at least two polls`);

  const out = createWriteStream(dest);
  const write = async (line: string): Promise<void> => {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  };
  let t = first.t;
  let count = 0;
  let forwards = true;
  let prev = first;
  await write(JSON.stringify({ t, tickers: first.tickers }));
  count++;
  while (t - first.t < minSpanMs) {
    // Each segment starts after the poll the previous one ended on.
    const order = forwards ? polls.slice(1) : polls.slice(0, -1).reverse();
    for (const p of order) {
      t += Math.max(1, Math.abs(p.t - prev.t));
      prev = p;
      await write(JSON.stringify({ t, tickers: p.tickers.map((x) => retime(x, p.t, t)) }));
      count++;
    }
    forwards = !forwards;
  }
  out.end();
  await once(out, 'finish');
  return { polls: count, spanMs: t - first.t };
}
