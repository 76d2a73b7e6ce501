// The command registry: every command's name and its line in `capibot --help`, and a loader that
// imports the command's module only when that command runs (or shows its own help). Listing the
// commands loads none of them, so `capibot --help` never pays for better-sqlite3, undici, pino or
// the config schemas. test/cli/registry.test.ts checks each term against the loaded command.
import type { RegisterCommand } from '../command.ts';

export interface CommandEntry {
  readonly name: string;
  /** The command as `capibot --help` lists it: name, `[options]` and its arguments. */
  readonly term: string;
  /** One line for the listing; `capibot NAME --help` shows the full description. */
  readonly summary: string;
  readonly load: () => Promise<RegisterCommand>;
}

/** Every command, in the order `capibot --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'backtest',
    term: 'backtest [options]',
    summary:
      'Replay a recording through the engine in virtual time; write report.json, report.html, fills.csv',
    load: async () => (await import('./backtest.ts')).registerBacktest,
  },
  {
    name: 'run',
    term: 'run [options]',
    summary: 'Run the configured strategies in paper or live mode',
    load: async () => (await import('./run.ts')).registerRun,
  },
  {
    name: 'sim',
    term: 'sim [options]',
    summary: 'Serve the paper exchange (a capi/v2 simulator) fed by a recording',
    load: async () => (await import('./sim.ts')).registerSim,
  },
  {
    name: 'record',
    term: 'record [options]',
    summary: 'Record the tickers endpoint into a recording',
    load: async () => (await import('./record.ts')).registerRecord,
  },
  {
    name: 'import',
    term: 'import [options] <IN> <OUT>',
    summary: 'Turn third-party market data (Binance websocket dumps, OHLCV bars) into a recording',
    load: async () => (await import('./import.ts')).registerImport,
  },
  {
    name: 'convert',
    term: 'convert [options] <IN> <OUT>',
    summary: 'Convert a recording between NDJSON and Parquet, losslessly',
    load: async () => (await import('./convert.ts')).registerConvert,
  },
  {
    name: 'api',
    term: 'api',
    summary: 'One request to the contract API /capi/v2, reply as JSON on stdout',
    load: async () => (await import('./api.ts')).registerApi,
  },
  {
    name: 'sweep',
    term: 'sweep [options]',
    summary: 'Run a parameter grid as backtests in worker threads and rank the runs',
    load: async () => (await import('./sweep.ts')).registerSweep,
  },
  {
    name: 'worker',
    term: 'worker [options]',
    summary: 'Run the points of distributed sweeps (sweep --queue) from a Redis queue',
    load: async () => (await import('./worker.ts')).registerWorker,
  },
  {
    name: 'validate',
    term: 'validate [options]',
    summary: 'Check a config file and the strategies it enables; exit 2 when invalid',
    load: async () => (await import('./validate.ts')).registerValidate,
  },
  {
    name: 'config-schema',
    term: 'config-schema',
    summary: 'Print the JSON Schema of capibot config files',
    load: async () => (await import('./config-schema.ts')).registerConfigSchema,
  },
  {
    name: 'new-strategy',
    term: 'new-strategy [options] <NAME>',
    summary: 'Scaffold a strategy plugin and its test from the template',
    load: async () => (await import('./new-strategy.ts')).registerNewStrategy,
  },
  {
    name: 'status',
    term: 'status [options]',
    summary: 'Show what the store of a config holds, and whether a runner holds it',
    load: async () => (await import('./status.ts')).registerStatus,
  },
  {
    name: 'kill',
    term: 'kill [options]',
    summary: 'Kill switch: set trading HALTED and cancel every open order',
    load: async () => (await import('./kill.ts')).registerKill,
  },
  {
    name: 'store',
    term: 'store',
    summary:
      'Store maintenance: `store prune` removes terminal orders, fills and journal lines before a date',
    load: async () => (await import('./store.ts')).registerStore,
  },
];
