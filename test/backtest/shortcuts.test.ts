// The backtest's two shortcuts change nothing a user can see: with and without them the same config
// and recording give the same report, byte for byte (orders, fills, PnL, requests by endpoint and
// weight used), while most of the work is skipped.
// - Skipped rounds (RoundShortcut, src/reconcile/pollers.ts): reconciliation rounds that cannot find
//   anything are charged instead of run.
// - Quiet polls (SessionOptions.quietPolls, src/strategy/testing/session.ts): a poll that meets a
//   settled session is fed without a promise, its tickers read charged instead of queued.
// - Deferred reads (SessionOptions.fastForward): a quiet poll's read is charged later, in one pass with
//   the rounds sleeping loops slept through, where no weight window can refuse it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prepareBacktest } from '../../src/backtest/prepare.ts';
import { buildReport } from '../../src/backtest/report/index.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { NO_OBJECTS } from '../../src/core/object-lists.ts';
import { SimPort } from '../../src/exchange/sim/sim-port.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

interface Shortcuts {
  readonly skipIdleRounds: boolean;
  readonly quietPolls: boolean;
  readonly fastForward?: boolean;
}

/** A report, and how often each shortcut was taken to make it. */
async function backtest(configPath: string, shortcuts: Shortcuts) {
  const charge = vi.spyOn(SimPort.prototype, 'chargeUnsent');
  const quiet = vi.spyOn(SimPort.prototype, 'tickersUnsent');
  const bulk = vi.spyOn(SimPort.prototype, 'chargeBulk');
  const record = await runBacktest({ ...(await prepareBacktest({ configPath, env: {} })), ...shortcuts });
  // Counted alike whether a read is charged at its poll or later in a pass (deferred or in bulk).
  const granted = charge.mock.calls.filter((_, i) => charge.mock.results[i]?.value === true);
  const skippedRounds = granted.filter(([eps]) => !(eps.length === 1 && eps[0] === 'tickers')).length;
  const quietPolls = quiet.mock.calls.length;
  const bulkPasses = bulk.mock.calls.length;
  charge.mockRestore();
  quiet.mockRestore();
  bulk.mockRestore();
  return { report: buildReport(record), record, skippedRounds, quietPolls, bulkPasses };
}

describe('backtest memory: rows retired from the store', () => {
  it.each([
    ['market orders on a moving-average cross', 'test/fixtures/configs/backtest/sma.yaml'],
    ['resting grid orders, canceled and refilled', 'config/grid.yaml'],
  ])(
    'give the same report whether old rows are kept as objects or retired at once: %s',
    async (_name, configPath) => {
      const prepared = await prepareBacktest({ configPath, env: {} });
      const retire = vi.spyOn(MemoryStore.prototype, 'retire');
      const kept = await runBacktest({ ...prepared, retireAfterMs: Number.POSITIVE_INFINITY });
      expect(retire).not.toHaveBeenCalled();
      // Retired as soon as they end: every later read of them goes through the retired text.
      const retired = await runBacktest({
        ...(await prepareBacktest({ configPath, env: {} })),
        retireAfterMs: 0,
      });
      const retiredOrders = retire.mock.results.reduce((n, r) => n + (r.value as number), 0);
      expect(retiredOrders).toBeGreaterThan(0);
      expect(buildReport(retired).json).toBe(buildReport(kept).json);
      expect(buildReport(retired).csv).toBe(buildReport(kept).csv);
    },
    120_000,
  );
});

describe('backtest shortcuts: skipped reconciliation rounds and quiet polls', () => {
  it.each([
    ['market orders on a moving-average cross', 'test/fixtures/configs/backtest/sma.yaml'],
    ['resting grid orders, canceled and refilled', 'config/grid.yaml'],
    ['quotes replaced every few ticks', 'config/market-maker.yaml'],
  ])(
    'give the same report as running every round and queueing every read: %s',
    async (_name, config) => {
      const every = await backtest(config, { skipIdleRounds: false, quietPolls: false });
      const skipping = await backtest(config, { skipIdleRounds: true, quietPolls: false });
      const both = await backtest(config, { skipIdleRounds: true, quietPolls: true });
      const quietOnly = await backtest(config, { skipIdleRounds: false, quietPolls: true });
      const chargedAtOnce = await backtest(config, {
        skipIdleRounds: true,
        quietPolls: true,
        fastForward: false,
      });

      expect([every.skippedRounds, every.quietPolls]).toEqual([0, 0]);
      expect(skipping.skippedRounds).toBeGreaterThan(0);
      expect(skipping.quietPolls).toBe(0);
      expect(both.skippedRounds).toBeGreaterThan(0);
      expect(both.quietPolls).toBeGreaterThan(0);
      expect(quietOnly.skippedRounds).toBe(0);
      expect(quietOnly.quietPolls).toBeGreaterThan(0);
      expect(every.record.fills.length).toBeGreaterThan(0);

      // Deferred reads are charged later (one pass), never through chargeUnsent one by one.
      expect(both.quietPolls).toBe(chargedAtOnce.quietPolls);
      expect(both.bulkPasses).toBeGreaterThan(0);
      expect(chargedAtOnce.bulkPasses).toBe(0);
      for (const r of [skipping, both, quietOnly, chargedAtOnce]) {
        expect(r.report.json).toBe(every.report.json);
        expect(r.report.csv).toBe(every.report.csv);
      }
      // The shared empty list the hot paths hand out (core/object-lists.ts) is read only: five
      // backtests later, nothing was ever pushed onto it.
      expect(NO_OBJECTS).toHaveLength(0);
    },
    120_000,
  );
});
