// Importer of OHLCV bars from tables: NautilusTrader catalog bar files (Parquet), Freqtrade candle
// files (Parquet or JSON) and CSV with any column names (`--map time=…,open=…`). Each row is
// checked here, naming its row and column (a missing value, a price that is not a decimal above 0,
// low above open or close, a negative volume, time not increasing); the checked bars then go
// through the bars-csv importer (bars-csv.ts: rolling 24 h statistics, one snapshot per bar once a
// full window exists), by way of a temporary CSV file, removed afterwards.
import { rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { dec, decToString } from '../../core/decimal.ts';
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll, RecordingMeta } from '../../core/market.ts';
import { barsCsvMeta, importBarsCsv, type BarsCsvImportOptions } from './bars-csv.ts';
import { parseColumnMap, resolveColumns, type Field } from './column-map.ts';
import { fileSha256 } from './input-lines.ts';
import { badCell, defaultIntScale, priceOf, timeCell, type TableImportOptions } from './quotes.ts';
import { decimalText, openTable, tableKind } from './table-rows.ts';

const FIELDS: readonly Field[] = ['time', 'open', 'high', 'low', 'close', 'volume'];

export interface BarsTableOptions extends TableImportOptions, Omit<BarsCsvImportOptions, 'symbol'> {
  /** Names the source kind in the meta line (`freqtrade` for Freqtrade's candles). */
  readonly preset?: 'freqtrade';
}

/** Checks every bar and writes them as `timestamp,open,high,low,close,volume` CSV (ms). */
async function checkedCsv(path: string, opts: BarsTableOptions, csv: string): Promise<Record<Field, string>> {
  const table = await openTable(path);
  const cols = resolveColumns(path, table.columns, FIELDS, parseColumnMap(opts.map, FIELDS));
  const intScale = opts.intScale ?? defaultIntScale(table.kv);
  const halfTick = dec(opts.tick ?? '1').div(2);
  writeFileSync(csv, 'timestamp,open,high,low,close,volume\n');
  let lastT = -1;
  for await (const batch of table.batches(FIELDS.map((f) => cols[f]))) {
    const lines: string[] = [];
    for (const { no, values } of batch) {
      const t = timeCell(path, no, cols.time, values[cols.time]);
      if (t <= lastT)
        throw badCell(path, no, cols.time, `bars must be in increasing time (${t} ms after ${lastT} ms)`);
      lastT = t;
      const [open, high, low, close] = (['open', 'high', 'low', 'close'] as const).map((f) =>
        priceOf(path, no, cols[f], values[cols[f]], intScale),
      ) as [
        ReturnType<typeof priceOf>,
        ReturnType<typeof priceOf>,
        ReturnType<typeof priceOf>,
        ReturnType<typeof priceOf>,
      ];
      const vol = decimalText(values[cols.volume], intScale);
      if ('why' in vol) throw badCell(path, no, cols.volume, vol.why);
      if (dec(vol.text).lt(0)) throw badCell(path, no, cols.volume, `volume must be ≥ 0, got ${vol.text}`);
      if (low.d.gt(open.d) || low.d.gt(close.d))
        throw badCell(path, no, cols.low, 'low is above open or close');
      if (high.d.lt(open.d) || high.d.lt(close.d))
        throw badCell(path, no, cols.high, 'high is below open or close');
      if (close.d.lte(halfTick))
        throw badCell(
          path,
          no,
          cols.close,
          `close ${close.text} is not above half the tick: pass --tick with this market's tick`,
        );
      lines.push(`${t},${open.text},${high.text},${low.text},${close.text},${decToString(dec(vol.text))}\n`);
    }
    appendFileSync(csv, lines.join(''));
  }
  return cols;
}

function tempCsv(): string {
  return join(
    tmpdir(),
    `capibot-bars-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.csv`,
  );
}

/** One snapshot per bar, as bars-csv makes them; the input checked row by row first. */
export async function* importBarsTable(
  path: string,
  opts: BarsTableOptions,
): AsyncGenerator<RecordedPoll, void, undefined> {
  const csv = tempCsv();
  try {
    await checkedCsv(path, opts, csv);
    yield* importBarsCsv(csv, { ...opts, symbol: opts.symbol });
  } catch (e) {
    // bars-csv names the temporary file: its checks are those made above, so this is not expected.
    if (e instanceof BadInputError && e.where?.startsWith(csv) === true)
      throw new BadInputError(e.message.slice((e.where ?? '').length + 2), path);
    throw e;
  } finally {
    rmSync(csv, { force: true });
  }
}

export async function barsTableMeta(path: string, opts: BarsTableOptions): Promise<RecordingMeta> {
  const table = await openTable(path);
  const cols = resolveColumns(path, table.columns, FIELDS, parseColumnMap(opts.map, FIELDS));
  const base = await barsCsvMeta(path, { ...opts, symbol: opts.symbol });
  const barType = table.kv.get('bar_type');
  return {
    ...base,
    source: {
      kind: opts.preset === 'freqtrade' ? `freqtrade-${tableKind(path)}` : `bars-${tableKind(path)}`,
      file: basename(path),
      sha256: await fileSha256(path),
      columns: cols,
      intScale: opts.intScale ?? defaultIntScale(table.kv),
      ...(barType !== undefined ? { barType } : {}),
    },
  };
}
