// `capibot import`: turns third-party market data into a recording.
// This file is the command's definition (its --help); ./import-run.ts imports, loaded only then
// (test/cli/compiled.test.ts).
import { Option, type Command } from 'commander';
import type { RegisterCommand } from '../command.ts';

export interface ImportFlags {
  readonly from: 'binance-ws' | 'bars-csv' | 'quotes' | 'bars' | 'freqtrade';
  readonly map?: string;
  readonly intScale?: string;
  readonly format?: 'ndjson' | 'parquet';
  readonly symbol: string;
  readonly gridMs?: string;
  readonly sourceSymbol?: string;
  readonly tick: string;
  readonly barLabel: 'open' | 'close';
  readonly force?: boolean;
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
        "flagged synthetic (pass --tick with the market's tick). " +
        'quotes: quote ticks from a Parquet or CSV table (NautilusTrader catalog QuoteTick files: ts_event, bid_price, ask_price) ' +
        '→ one snapshot per quote, last = the mid (synthetic). bars: OHLCV bars from a Parquet or CSV table with any column names ' +
        '(NautilusTrader catalog bar files), as bars-csv. freqtrade: Freqtrade candle files (.parquet or .json; not .feather), as bars-csv. ' +
        'Columns are found by their usual names or named with --map; a bad row is refused with its row number and column. ' +
        'An input that yields no snapshot is refused; on error nothing is written.',
    )
    .addOption(
      new Option('--from <FORMAT>', 'input format')
        .choices(['binance-ws', 'bars-csv', 'quotes', 'bars', 'freqtrade'])
        .makeOptionMandatory(),
    )
    .option(
      '--map <FIELD=COLUMN,…>',
      'quotes, bars, freqtrade: input columns, e.g. time=ts_event,bid=bid_price,ask=ask_price (fields: time, bid, ask; time, open, high, low, close, volume)',
    )
    .option(
      '--int-scale <N>',
      'quotes, bars: integer prices are value × 10^-N (default 9 for NautilusTrader files, which say price_precision; else 0)',
    )
    .addOption(
      new Option(
        '--format <FORMAT>',
        'recording format to write (default: by OUT, .parquet → parquet)',
      ).choices(['ndjson', 'parquet']),
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
    .argument('<OUT>', 'recording to write (.ndjson, .ndjson.gz or .parquet)')
    .action(async (input: string, out: string, flags: ImportFlags) => {
      const { runImport } = await import('./import-run.ts');
      await runImport(input, out, flags, ctx);
    });
};
