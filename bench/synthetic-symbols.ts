// A synthetic many-symbol recording for the "symbols" benchmark (bench/symbols.ts), made at bench
// time from a bundled one into a temporary file. Nothing it writes is committed or shipped.
//
// The bundled recordings hold one or two symbols, while the tickers endpoint of a large venue answers
// with hundreds. So every poll of the source (the FTX month: one `cmt_btcusdt` ticker per minute) is
// widened to `symbols` tickers: the real row, and `symbols − 1` synthetic ones named
// `cmt_syn001usdt`, `cmt_syn002usdt`, … Synthetic symbol k copies the real row of another poll (k·97
// polls later, wrapping around, so the symbols do not move in lockstep) with its five prices scaled
// by m / 10^e (m = 1…9, e = 0…4, by k; four decimals at most, the default contract's price tick) and
// its timestamp set to the poll's. Volumes and the 24 h change are copied unchanged. Every synthetic
// line is a valid recording line (the reader checks each one), sorted by symbol as a venue lists them.
//
// The strategies of the benchmark watch the same five symbols (TRADED) in the 5-symbol and in the
// 200-symbol recording: their tickers are byte-for-byte the same in both, only the others are added.
import { RECORDED_TICKER_KEYS } from '../src/market/recording/fast-line.ts';
import { pollLines, recordingLines } from './recording-files.ts';

/** The symbols the benchmark's strategies trade: the real one and four synthetic ones spread out. */
export const TRADED: readonly string[] = [
  'cmt_btcusdt',
  'cmt_syn040usdt',
  'cmt_syn080usdt',
  'cmt_syn120usdt',
  'cmt_syn160usdt',
];

const REAL = 'cmt_btcusdt';
const PRICE_KEYS = ['last', 'best_ask', 'best_bid', 'high_24h', 'low_24h'] as const;
/** Ticker keys in the order the bundled recordings write them. */
const KEYS = RECORDED_TICKER_KEYS;

type Row = Record<(typeof KEYS)[number], string>;

export function syntheticSymbol(k: number): string {
  return `cmt_syn${String(k).padStart(3, '0')}usdt`;
}

/**
 * The symbols of a `count`-symbol poll: TRADED first picked, then the lowest-numbered synthetic
 * symbols not traded, sorted. `count` 5 gives TRADED exactly.
 */
export function symbolsOf(count: number): string[] {
  if (!Number.isInteger(count) || count < TRADED.length)
    throw new RangeError(`a synthetic poll holds at least ${TRADED.length} symbols, got ${count}`);
  const out = new Set(TRADED);
  for (let k = 1; out.size < count; k++) out.add(syntheticSymbol(k));
  return [...out].sort();
}

/** The source's poll rows: `t` and its first ticker (the FTX month holds one per poll). */
function sourceRows(path: string): { t: number; row: Row }[] {
  const out: { t: number; row: Row }[] = [];
  for (const line of pollLines(path)) {
    const p = JSON.parse(line) as { t: number; tickers: Row[] };
    const row = p.tickers.find((r) => r.symbol === REAL);
    if (row !== undefined) out.push({ t: p.t, row });
  }
  if (out.length === 0) throw new Error(`${path}: no ${REAL} ticker to derive symbols from`);
  return out;
}

/** Price text scaled by m / 10^e, four decimals at most (no trailing zeros), always above 0. */
function scaled(price: string, m: number, e: number): string {
  const x = Number(((Number(price) * m) / 10 ** e).toFixed(4));
  return String(x > 0 ? x : 0.0001);
}

function rowText(r: Row): string {
  let s = '{';
  for (let i = 0; i < KEYS.length; i++) {
    const k = KEYS[i] as (typeof KEYS)[number];
    s += `${i > 0 ? ',' : ''}"${k}":"${r[k]}"`;
  }
  return `${s}}`;
}

export interface SyntheticRecording {
  readonly path: string;
  readonly polls: number;
  readonly symbols: number;
  /** Characters of the poll lines (decompressed, newlines included). */
  readonly pollChars: number;
}

/**
 * Writes a recording (gzip when `out` ends in `.gz`, else plain NDJSON) of the first `polls` polls of `source`, each widened to `symbols` tickers
 * (see the top of this file). Deterministic: the same arguments give the same file.
 */
export async function writeSyntheticRecording(
  source: string,
  out: string,
  o: { readonly polls: number; readonly symbols: number },
): Promise<SyntheticRecording> {
  const rows = sourceRows(source);
  if (o.polls > rows.length) throw new RangeError(`${source} holds ${rows.length} polls, not ${o.polls}`);
  const symbols = symbolsOf(o.symbols);
  const synthetic = symbols.map((s) => (s === REAL ? 0 : Number(s.slice(7, 10))));
  const file = recordingLines(out, 1);
  const meta = {
    format: 'capibot-recording/1',
    title: `SYNTHETIC: ${o.polls} polls × ${o.symbols} symbols, widened from ${source} (bench/synthetic-symbols.ts)`,
    note: 'Benchmark input only: one real symbol, the others derived from it. Not market data.',
    symbols,
  };
  await file.line(JSON.stringify({ meta }));
  let pollChars = 0;
  for (let i = 0; i < o.polls; i++) {
    const { t, row } = rows[i] as { t: number; row: Row };
    const parts: string[] = [];
    for (let j = 0; j < symbols.length; j++) {
      const k = synthetic[j] as number;
      if (k === 0) {
        parts.push(rowText(row));
        continue;
      }
      const src = (rows[(i + k * 97) % rows.length] as { row: Row }).row;
      const m = (k % 9) + 1;
      const e = Math.floor(k / 9) % 5;
      const r: Row = { ...src, symbol: symbols[j] as string, timestamp: String(t) };
      for (const key of PRICE_KEYS) r[key] = scaled(src[key], m, e);
      parts.push(rowText(r));
    }
    const line = `{"t":${t},"tickers":[${parts.join(',')}]}`;
    pollChars += line.length + 1;
    await file.line(line);
  }
  await file.end();
  return { path: out, polls: o.polls, symbols: o.symbols, pollChars };
}
