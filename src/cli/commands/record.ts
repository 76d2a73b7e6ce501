// `capibot record`: polls the public tickers endpoint and appends one line per poll to a recording.
// This file is the command's definition (its --help); ./record-run.ts records, imported only then
// (test/cli/compiled.test.ts).
import { Option, type Command } from 'commander';
import { DEFAULT_BASE_URL } from '../../exchange/weex/defaults.ts';
import type { RegisterCommand } from '../command.ts';

export interface RecordFlags {
  readonly out: string;
  readonly baseUrl: string;
  readonly intervalMs: string;
  readonly durationS?: string;
  readonly symbols?: string;
  readonly format?: 'ndjson' | 'parquet';
}

export /** The tickers endpoint costs 40 of the 1000 IP weight per 10 s: faster than this alone exhausts it. */
const MIN_INTERVAL_MS = 400;

export const registerRecord: RegisterCommand = (program: Command, ctx) => {
  program
    .command('record')
    .description(
      'Record the tickers endpoint (GET /capi/v2/market/tickers) into a recording: one line per poll, gzip ' +
        'when REC ends in .gz, flushed after every poll. An existing recording is continued. Stops after ' +
        '--duration-s or on Ctrl-C (SIGINT/SIGTERM), always leaving a valid file.',
    )
    .requiredOption('--out <REC>', 'recording file (.ndjson, .ndjson.gz or .parquet)')
    .addOption(
      new Option(
        '--format <FORMAT>',
        'parquet: record into the journal REC.ndjson (flushed every poll, continued after a crash) and convert it to REC at the end (default: by REC, .parquet → parquet)',
      ).choices(['ndjson', 'parquet']),
    )
    .option('--base-url <URL>', 'API origin (a `capibot sim` address works too)', DEFAULT_BASE_URL)
    .option(
      '--interval-ms <N>',
      `poll interval in ms (minimum ${MIN_INTERVAL_MS}: the endpoint weighs 40 IP)`,
      '1000',
    )
    .option('--duration-s <N>', 'stop after N seconds (default: run until interrupted)')
    .option('--symbols <a,b>', 'keep only these symbols, e.g. cmt_btcusdt,cmt_ethusdt (default: all)')
    .action(async (flags: RecordFlags) => {
      const { runRecord } = await import('./record-run.ts');
      await runRecord(flags, ctx);
    });
};
