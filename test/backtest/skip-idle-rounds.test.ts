// The backtest's round shortcut (RoundShortcut, src/reconcile/pollers.ts) changes nothing a user can
// see: with and without it the same config and recording give the same report, byte for byte —
// orders, fills, PnL, requests by endpoint and weight used — while most rounds are skipped.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prepareBacktest } from '../../src/backtest/prepare.ts';
import { buildReport } from '../../src/backtest/report/index.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { SimPort } from '../../src/exchange/sim/sim-port.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A report, and how many rounds the shortcut skipped to make it. */
async function backtest(configPath: string, skipIdleRounds: boolean) {
  const charge = vi.spyOn(SimPort.prototype, 'chargeUnsent');
  const record = await runBacktest({ ...(await prepareBacktest({ configPath, env: {} })), skipIdleRounds });
  const skipped = charge.mock.results.filter((r) => r.type === 'return' && r.value === true).length;
  charge.mockRestore();
  return { report: buildReport(record), record, skipped };
}

describe('backtest: skipping reconciliation rounds that cannot find anything', () => {
  it.each([
    ['market orders on a moving-average cross', 'test/fixtures/configs/backtest/sma.yaml'],
    ['resting grid orders, canceled and refilled', 'config/grid.yaml'],
    ['quotes replaced every few ticks', 'config/market-maker.yaml'],
  ])(
    'gives the same report as running every round: %s',
    async (_name, config) => {
      const every = await backtest(config, false);
      const skipping = await backtest(config, true);
      expect(every.skipped).toBe(0);
      expect(skipping.skipped).toBeGreaterThan(0);
      expect(every.record.fills.length).toBeGreaterThan(0);
      expect(skipping.report.json).toBe(every.report.json);
      expect(skipping.report.csv).toBe(every.report.csv);
    },
    60_000,
  );
});
