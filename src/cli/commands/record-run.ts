// `capibot record`, run: poll the tickers endpoint into the recording until the duration or a signal,
// then (for Parquet) convert the journal. The options: ./record.ts.
import { existsSync, rmSync } from 'node:fs';
import { BadInputError } from '../../core/errors.ts';
import { WeexClient } from '../../exchange/weex/client.ts';
import { runRecorder } from '../../market/recorder.ts';
import { convertRecording } from '../../market/recording/convert.ts';
import { isParquetPath } from '../../market/recording/parquet-reader.ts';
import { createRootLogger } from '../../obs/logger.ts';
import type { CliContext } from '../command.ts';
import { parsePositiveInt } from '../flag-values.ts';
import { MIN_INTERVAL_MS, type RecordFlags } from './record.ts';

export async function runRecord(flags: RecordFlags, ctx: CliContext): Promise<void> {
  const intervalMs = parsePositiveInt(flags.intervalMs, '--interval-ms');
  if (intervalMs < MIN_INTERVAL_MS)
    throw new BadInputError(`--interval-ms must be at least ${MIN_INTERVAL_MS}`);
  const durationMs =
    flags.durationS !== undefined ? parsePositiveInt(flags.durationS, '--duration-s') * 1000 : undefined;
  const symbols = flags.symbols
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  // The exchange's symbols are lower case (cmt_btcusdt): another spelling never matches a ticker.
  for (const s of symbols ?? [])
    if (!/^[a-z0-9_]+$/.test(s))
      throw new BadInputError(
        `--symbols: ${JSON.stringify(s)} is not a symbol like cmt_btcusdt (lower case)`,
      );
  let baseUrl: string;
  try {
    baseUrl = new URL(flags.baseUrl).origin;
  } catch {
    throw new BadInputError(`--base-url is not a URL: ${flags.baseUrl}`);
  }

  // Parquet has its footer at the end: polls go to an NDJSON journal, converted when recording stops.
  const parquet = (flags.format ?? (isParquetPath(flags.out) ? 'parquet' : 'ndjson')) === 'parquet';
  if (parquet !== isParquetPath(flags.out))
    throw new BadInputError(
      parquet
        ? '--format parquet needs --out to end in .parquet'
        : '--out ends in .parquet: use --format parquet',
      flags.out,
    );
  if (parquet && existsSync(flags.out))
    throw new BadInputError(
      'exists, and a Parquet recording cannot be continued: record to a new name (or to NDJSON, and convert)',
      flags.out,
    );
  const journal = parquet ? `${flags.out}.ndjson` : flags.out;

  const root = createRootLogger();
  const logger = root.logger.child({ component: 'record' });
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const client = new WeexClient({ baseUrl, logger: root.logger, signal: abort.signal });
  try {
    ctx.out.info(
      `recording ${baseUrl} tickers every ${intervalMs} ms into ${journal}${parquet ? ` (converted to ${flags.out} at the end)` : ''} (Ctrl-C stops)`,
    );
    const r = await runRecorder({
      out: journal,
      fetchTickers: () => client.tickers(),
      intervalMs,
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(symbols !== undefined ? { symbols } : {}),
      signal: abort.signal,
      clock: { now: () => Date.now() },
      meta: { baseUrl },
      logger,
    });
    const span =
      r.firstT !== undefined && r.lastT !== undefined
        ? `, ${new Date(r.firstT).toISOString()} … ${new Date(r.lastT).toISOString()}`
        : '';
    ctx.out.info(`${r.appended ? 'appended' : 'wrote'} ${r.polls} polls to ${r.path}${span}`);
    // Nothing recorded (every poll failed, or the run was stopped at once): a runtime failure, so a
    // job runner can tell it from success.
    if (r.polls === 0) {
      ctx.out.info('record: nothing was recorded (see the warnings above)');
      ctx.setExitCode(1);
    }
    if (parquet && existsSync(journal)) {
      const c = await convertRecording(journal, flags.out);
      rmSync(journal);
      ctx.out.info(`converted ${c.polls} polls to ${flags.out}`);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await client.close();
    root.flush();
  }
}
