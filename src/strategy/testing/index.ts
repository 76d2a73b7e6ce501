// The test harness for strategy authors: run a strategy over inline ticks or a recording, in
// virtual time, through the real engine and the in-process simulator, and inspect its orders,
// fills, intents and summary. Marble helpers test RxJS-style strategies tick by tick.
export { DEFAULT_START_MS, runStrategy } from './run-strategy.ts';
export type { RunControl, RunStrategyOptions } from './run-strategy.ts';
export type { EmittedIntent, LegPosition, RunSummary, StrategyRun } from './result.ts';
export { hold, ramp, series, toPolls } from './ticks.ts';
export type { SeriesOptions, TickInput, TickSpec } from './ticks.ts';
export { describeIntent, describeOrder } from './describe.ts';
export { Session } from './session.ts';
export type { HarnessConfig, SessionOptions } from './session.ts';
export { strategyMarbles } from './marbles.ts';
export type { FakeState, MarbleOptions, RunHelpers, StrategyMarbles } from './marbles.ts';
export { backtestConfig } from './backtest-config.ts';
export type { BacktestConfigOptions, ConfigBacktest } from './backtest-config.ts';
