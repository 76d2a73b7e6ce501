// The engine as the bench's child processes load it: the compiled dist/ build when it is fresh (what
// `capibot backtest` runs: bin/capibot.js rebuilds a stale dist/ before running it), else the
// TypeScript sources through tsx (CAPIBOT_FROM_SOURCE=1 forces them). Every module a child uses comes
// from the same tree: a poll read by one tree's reader is not the other tree's LinePoll.
import type * as Prepare from '../src/backtest/prepare.ts';
import type * as Report from '../src/backtest/report/index.ts';
import type * as RunBacktest from '../src/backtest/run-backtest.ts';
import type * as TickerRows from '../src/core/ticker-rows.ts';
import type * as PollLine from '../src/market/recording/poll-line.ts';
import type * as Reader from '../src/market/recording/reader.ts';

export interface EngineModules {
  /** `dist` or `src`: which tree the modules came from (reported with the figures). */
  readonly tree: 'dist' | 'src';
  readonly prepareBacktest: typeof Prepare.prepareBacktest;
  readonly runBacktest: typeof RunBacktest.runBacktest;
  readonly runSpooledBacktest: typeof RunBacktest.runSpooledBacktest;
  readonly writeReport: typeof Report.writeReport;
  readonly tickerRows: typeof TickerRows.tickerRows;
  readonly openRecording: typeof Reader.openRecording;
  readonly pollOfLine: typeof PollLine.pollOfLine;
}

async function distIsFresh(): Promise<boolean> {
  if (process.env['CAPIBOT_FROM_SOURCE'] === '1') return false;
  // Plain JavaScript without declarations: imported by URL, its two functions typed here.
  const builder = new URL('../scripts/build.js', import.meta.url).href;
  const { isBuildFresh, build } = (await import(builder)) as {
    isBuildFresh: () => boolean;
    build: () => Promise<void>;
  };
  if (isBuildFresh()) return true;
  try {
    await build();
    return true;
  } catch {
    return false;
  }
}

export async function engineModules(): Promise<EngineModules> {
  const tree = (await distIsFresh()) ? 'dist' : 'src';
  const ext = tree === 'dist' ? 'js' : 'ts';
  const url = (path: string): string => new URL(`../${tree}/${path}.${ext}`, import.meta.url).href;
  const [prepare, run, rows, reader, report, pollLine] = await Promise.all([
    import(url('backtest/prepare')) as Promise<typeof Prepare>,
    import(url('backtest/run-backtest')) as Promise<typeof RunBacktest>,
    import(url('core/ticker-rows')) as Promise<typeof TickerRows>,
    import(url('market/recording/reader')) as Promise<typeof Reader>,
    import(url('backtest/report/index')) as Promise<typeof Report>,
    import(url('market/recording/poll-line')) as Promise<typeof PollLine>,
  ]);
  return {
    tree,
    prepareBacktest: prepare.prepareBacktest,
    runBacktest: run.runBacktest,
    runSpooledBacktest: run.runSpooledBacktest,
    writeReport: report.writeReport,
    tickerRows: rows.tickerRows,
    openRecording: reader.openRecording,
    pollOfLine: pollLine.pollOfLine,
  };
}
