// Settings that combine several fields, computed in one place so every reader agrees.
import type { Config } from './schema.ts';

/** Whether a SIGTERM/SIGINT shutdown cancels open orders (shutdown.cancelOpenOrders or orders.cancelOnExit). */
export function cancelOnSignal(config: Config): boolean {
  return config.shutdown.cancelOpenOrders || config.orders.cancelOnExit;
}

/** The recording a backtest replays: the --data flag, else backtest.data, else paper.data. */
export function backtestData(config: Config, flag?: string): string | undefined {
  return flag ?? config.backtest.data ?? config.paper.data;
}
