// The run record of a backtest holds only the orders the report reads one by one (with a fill, or
// still open) and counts over every order (issue #24: a long run's end must not hold every order).
// The report must come out byte for byte as from the record with every order.
import { describe, expect, it } from 'vitest';
import { prepareBacktest } from '../../src/backtest/prepare.ts';
import { buildReport } from '../../src/backtest/report/index.ts';
import { countOrders } from '../../src/backtest/report/order-counts.ts';
import { runBacktest } from '../../src/backtest/run-backtest.ts';
import { isTerminal } from '../../src/core/orders.ts';

describe('the backtest run record', () => {
  it.each([
    ['resting grid orders, every one filled or open', 'config/grid.yaml', false],
    ['a market maker, its stale quotes canceled unfilled', 'config/market-maker.yaml', true],
  ])(
    '%s: orders with a fill or open, counts over all, the same report',
    async (_label, configPath, fewer) => {
      const prepared = await prepareBacktest({ configPath, env: {} });
      const lean = await runBacktest(prepared);
      const full = await runBacktest({ ...prepared, allOrders: true });

      const counts = countOrders(full.orders);
      expect(lean.orderCounts).toEqual(counts);
      // Orders canceled without a fill are left out of the lean record.
      expect(lean.orders.length < full.orders.length).toBe(fewer);
      const filled = new Set(full.fills.map((f) => f.clientOid));
      const expected = full.orders.filter((o) => !isTerminal(o.status) || filled.has(o.clientOid));
      expect(lean.orders).toEqual(expected);

      const a = buildReport(lean);
      const { orderCounts, ...everyOrder } = full;
      expect(orderCounts).toEqual(counts);
      const b = buildReport(everyOrder);
      expect(a.json).toBe(b.json);
      expect(a.csv).toBe(b.csv);
      expect(a.tradesCsv).toBe(b.tradesCsv);
      expect(a.html).toBe(b.html);
    },
  );
});
