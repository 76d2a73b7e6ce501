// `capibot import`: turns third-party market data into a recording.
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { RecordedPoll, RecordingMeta } from '../../core/market.ts';
import { BadInputError } from '../../core/errors.ts';
import { barsCsvMeta, importBarsCsv, type BarsCsvImportOptions } from '../../market/importers/bars-csv.ts';
import {
  binanceWsMeta,
  importBinanceWs,
  type BinanceWsImportOptions,
} from '../../market/importers/binance-ws.ts';
import { openRecordingWriter } from '../../market/recording/writer.ts';
import type { RegisterCommand } from '../command.ts';

interface ImportFlags {
  readonly from: 'binance-ws' | 'bars-csv';
  readonly symbol: string;
  readonly gridMs?: string;
  readonly sourceSymbol?: string;
  readonly tick: string;
  readonly barLabel: 'open' | 'close';
  readonly force?: boolean;
}

function parsePositiveInt(text: string, flag: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new BadInputError(`${flag} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}

function checkSymbol(text: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text))
    throw new BadInputError(`--symbol must be a symbol like cmt_btcusdt, got ${JSON.stringify(text)}`);
  return text;
}

export const registerImport: RegisterCommand = (program: Command, ctx) => {
  program
    .command('import')
    .description(
      'Turn third-party market data into a recording (gzip when OUT ends in .gz). ' +
        'binance-ws: raw Binance USD-M websocket dumps (`<recv_ns> <json>` per line, plain or gzip; each JSON the ' +
        'combined-stream wrapper {"stream":…,"data":…}): bookTicker → best bid/ask, trade → last (other events, ' +
        'aggTrade included, are skipped), time = exchange time E; every exchange millisecond with an update, or a fixed ' +
        'grid with --grid-ms; 24 h fields are session-relative (said so in the meta line). ' +
        'bars-csv: OHLCV bars (timestamp,open,high,low,close,volume; timestamps UTC date-times or epoch seconds, milliseconds, microseconds or nanoseconds) ' +
        '→ one snapshot per bar with rolling 24 h statistics once a full day exists; bid/ask = close ∓ tick/2, ' +
        'flagged synthetic (pass --tick with the market\'s tick). An input that yields no snapshot is refused.',
    )
    .addOption(
      new Option('--from <FORMAT>', 'input format').choices(['binance-ws', 'bars-csv']).makeOptionMandatory(),
    )
    .requiredOption('--symbol <SYM>', 'symbol written into the recording, e.g. cmt_btcusdt')
    .option('--grid-ms <N>', 'binance-ws: one snapshot per N ms of exchange time (default: every update)')
    .option(
      '--source-symbol <S>',
      'binance-ws: Binance symbol to take, e.g. BTCUSDT (default: the file’s only one)',
    )
    .option('--tick <DEC>', 'bars-csv: price tick for the synthetic bid/ask (1 = FTX BTC-PERP)', '1')
    .addOption(
      new Option(
        '--bar-label <WHICH>',
        'bars-csv: what a bar timestamp marks; snapshots are at the bar close',
      )
        .choices(['open', 'close'])
        .default('open'),
    )
    .option('--force', 'replace OUT when it exists (default: refuse)')
    .argument('<IN>', 'input file')
    .argument('<OUT>', 'recording to write (.ndjson or .ndjson.gz)')
    .action(async (input: string, out: string, flags: ImportFlags) => {
      const symbol = checkSymbol(flags.symbol);
      // OUT first: the meta step reads the whole input (its SHA-256), which may be gigabytes.
      if (existsSync(out) && statSync(out).isDirectory())
        throw new BadInputError('is a folder: name the recording file to write', out);
      if (flags.force !== true && existsSync(out))
        throw new BadInputError('file exists (use --force to replace it)', out);
      const parent = dirname(resolve(out));
      if (!existsSync(parent) || !statSync(parent).isDirectory())
        throw new BadInputError(`the folder ${parent} does not exist`, out);
      let meta: RecordingMeta;
      let polls: AsyncIterable<RecordedPoll>;
      if (flags.from === 'binance-ws') {
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
      // Written under a temporary name and renamed at the end: a failed import leaves no partial OUT.
      const partial = `${out}.partial-${process.pid}`;
      const writer = await openRecordingWriter(partial, {
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
            flags.from === 'bars-csv'
              ? 'no snapshot came out: the first one needs a full statistics window of bars (24 h by default)'
              : 'no snapshot came out: it needs both a bookTicker and a trade event, each in the combined-stream wrapper {"stream":…,"data":…}',
            input,
          );
        await writer.close();
        renameSync(partial, out);
      } catch (e) {
        await writer.close().catch(() => undefined);
        rmSync(partial, { force: true });
        throw e;
      }
      const span =
        firstT !== undefined && writer.lastT !== undefined
          ? `, ${new Date(firstT).toISOString()} … ${new Date(writer.lastT).toISOString()}`
          : '';
      ctx.out.info(`imported ${count} snapshots into ${out}${span}`);
    });
};
