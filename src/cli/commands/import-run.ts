// `capibot import`, run: read the third-party file in its format and write the recording (nothing
// written on error). The options: ./import.ts.
import { renameSync, rmSync } from 'node:fs';
import type { RecordedPoll, RecordingMeta } from '../../core/market.ts';
import { BadInputError } from '../../core/errors.ts';
import { barsCsvMeta, importBarsCsv, type BarsCsvImportOptions } from '../../market/importers/bars-csv.ts';
import {
  binanceWsMeta,
  importBinanceWs,
  type BinanceWsImportOptions,
} from '../../market/importers/binance-ws.ts';
import { barsTableMeta, importBarsTable, type BarsTableOptions } from '../../market/importers/bars-table.ts';
import { importQuotes, quotesMeta, type TableImportOptions } from '../../market/importers/quotes.ts';
import { isParquetPath } from '../../market/recording/parquet-reader.ts';
import { openParquetRecordingWriter } from '../../market/recording/parquet-writer.ts';
import { openRecordingWriter } from '../../market/recording/writer.ts';
import type { CliContext } from '../command.ts';
import { parsePositiveInt } from '../flag-values.ts';
import type { ImportFlags } from './import.ts';
import { checkOutputFile } from '../output-file.ts';

function checkSymbol(text: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text))
    throw new BadInputError(`--symbol must be a symbol like cmt_btcusdt, got ${JSON.stringify(text)}`);
  return text;
}

function parseScale(text: string): number {
  const n = /^\d{1,2}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(n >= 0 && n <= 30))
    throw new BadInputError(`--int-scale must be an integer 0..30, got ${JSON.stringify(text)}`);
  return n;
}

/** The Parquet writer as the import loop uses a writer. */
function parquetSink(
  out: string,
  meta: RecordingMeta,
): {
  write(p: RecordedPoll): void;
  close(): Promise<void>;
  abort(): void;
  readonly lastT: number | undefined;
} {
  return openParquetRecordingWriter(out, { meta });
}

export async function runImport(
  input: string,
  out: string,
  flags: ImportFlags,
  ctx: CliContext,
): Promise<void> {
  const symbol = checkSymbol(flags.symbol);
  // OUT first: the meta step reads the whole input (its SHA-256), which may be gigabytes.
  checkOutputFile(out, flags.force);
  const parquet = (flags.format ?? (isParquetPath(out) ? 'parquet' : 'ndjson')) === 'parquet';
  if (parquet !== isParquetPath(out))
    throw new BadInputError(
      parquet
        ? '--format parquet needs OUT to end in .parquet'
        : 'OUT ends in .parquet: use --format parquet (or another name)',
      out,
    );
  const table = flags.from === 'quotes' || flags.from === 'bars' || flags.from === 'freqtrade';
  if (!table && (flags.map !== undefined || flags.intScale !== undefined))
    throw new BadInputError('--map and --int-scale apply to --from quotes, bars and freqtrade only');
  let meta: RecordingMeta;
  let polls: AsyncIterable<RecordedPoll>;
  if (table) {
    if (flags.gridMs !== undefined || flags.sourceSymbol !== undefined)
      throw new BadInputError('--grid-ms and --source-symbol apply to --from binance-ws only');
    const base: TableImportOptions = {
      symbol,
      ...(flags.map !== undefined ? { map: flags.map } : {}),
      ...(flags.intScale !== undefined ? { intScale: parseScale(flags.intScale) } : {}),
    };
    if (flags.from === 'quotes') {
      if (flags.tick !== '1' || flags.barLabel !== 'open')
        throw new BadInputError('--tick and --bar-label apply to bars only');
      meta = await quotesMeta(input, base);
      polls = importQuotes(input, base);
    } else {
      const opts: BarsTableOptions = {
        ...base,
        tick: flags.tick,
        barLabel: flags.barLabel,
        ...(flags.from === 'freqtrade' ? { preset: 'freqtrade' as const } : {}),
      };
      meta = await barsTableMeta(input, opts);
      polls = importBarsTable(input, opts);
    }
  } else if (flags.from === 'binance-ws') {
    if (flags.tick !== '1' || flags.barLabel !== 'open')
      throw new BadInputError('--tick and --bar-label apply to --from bars-csv only');
    const opts: BinanceWsImportOptions = {
      symbol,
      ...(flags.gridMs !== undefined ? { gridMs: parsePositiveInt(flags.gridMs, '--grid-ms') } : {}),
      ...(flags.sourceSymbol !== undefined ? { sourceSymbol: flags.sourceSymbol } : {}),
    };
    meta = await binanceWsMeta(input, opts);
    polls = importBinanceWs(input, opts);
  } else {
    if (flags.gridMs !== undefined || flags.sourceSymbol !== undefined) {
      throw new BadInputError('--grid-ms and --source-symbol apply to --from binance-ws only');
    }
    const opts: BarsCsvImportOptions = { symbol, tick: flags.tick, barLabel: flags.barLabel };
    meta = await barsCsvMeta(input, opts);
    polls = importBarsCsv(input, opts);
  }
  // Written under a temporary name and renamed at the end: a failed import leaves no partial OUT
  // (the Parquet writer does the same itself).
  const partial = `${out}.partial-${process.pid}`;
  const writer = parquet
    ? parquetSink(out, meta)
    : await openRecordingWriter(partial, {
        meta,
        mode: 'overwrite',
        gzip: out.endsWith('.gz'),
      });
  let count = 0;
  let firstT: number | undefined;
  try {
    for await (const p of polls) {
      writer.write(p);
      firstT ??= p.t;
      count++;
    }
    // A recording without polls cannot be replayed: say why none came out, write nothing.
    if (count === 0)
      throw new BadInputError(
        flags.from === 'bars-csv' || flags.from === 'bars' || flags.from === 'freqtrade'
          ? 'no snapshot came out: the first one needs a full statistics window of bars (24 h by default)'
          : flags.from === 'quotes'
            ? 'no snapshot came out: the table has no rows'
            : 'no snapshot came out: it needs both a bookTicker and a trade event, each in the combined-stream wrapper {"stream":…,"data":…}',
        input,
      );
    await writer.close();
    if (!parquet) renameSync(partial, out);
  } catch (e) {
    if (parquet) (writer as ReturnType<typeof parquetSink>).abort();
    else await writer.close().catch(() => undefined);
    rmSync(partial, { force: true });
    throw e;
  }
  const span =
    firstT !== undefined && writer.lastT !== undefined
      ? `, ${new Date(firstT).toISOString()} … ${new Date(writer.lastT).toISOString()}`
      : '';
  ctx.out.info(`imported ${count} snapshots into ${out}${span}`);
}
