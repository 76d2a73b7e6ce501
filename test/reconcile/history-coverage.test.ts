// History coverage (found by the chaos run): the order-history endpoint has no page 2, so a full page
// proves nothing and blocks declaring orders lost. Only symbols that hold a non-terminal order may
// block it, and a page made full by the look-back alone is asked again for just the pending orders'
// span — so an unknown order is settled unless its own symbol really had a page of orders since.
import { describe, expect, it } from 'vitest';
import { orderId, symbolId } from '../../src/core/ids.ts';
import type { OrderReport } from '../../src/core/reports.ts';
import type { HistoryQuery } from '../../src/exchange/port.ts';
import { directRead, fetchHistory, type ReconcilePort } from '../../src/reconcile/fetch.ts';
import { BTC, localOrder, row, T0 } from './fixtures.ts';

const ETH = symbolId('cmt_ethusdt');
const CFG = { pageSize: 100, lookbackMs: 300_000, skewMs: 30_000 };
const NOW = T0 + 60_000;

/**
 * A venue whose history holds, per symbol, orders created at the given times; like the simulator it
 * answers the newest `pageSize` of those created at or after `createDate`.
 */
function venue(times: Readonly<Record<string, readonly number[]>>): {
  port: ReconcilePort;
  queries: HistoryQuery[];
} {
  const queries: HistoryQuery[] = [];
  const unused = () => Promise.reject(new Error('not used'));
  const port: ReconcilePort = {
    fills: unused,
    planHistory: unused,
    currentPlans: unused,
    history: (q: HistoryQuery) => {
      queries.push(q);
      const symbol = q.symbol ?? BTC;
      const rows: OrderReport[] = (times[symbol] ?? [])
        .filter((t) => t >= (q.createDate ?? 0))
        .sort((a, b) => b - a)
        .slice(0, q.pageSize ?? 100)
        .map((t, i) => row(1000 + i, { symbol, status: 'canceled', createTime: t }));
      return Promise.resolve(rows);
    },
  };
  return { port, queries };
}

/** `n` orders created evenly between `from` and `to`. */
const spread = (n: number, from: number, to: number): number[] =>
  Array.from({ length: n }, (_, i) => from + Math.floor(((to - from) * i) / Math.max(1, n - 1)));

describe('fetchHistory coverage', () => {
  const unknownEth = localOrder(1, { symbol: ETH, status: 'unknown', createdAt: T0, updatedAt: T0 });

  it('ignores the full page of a symbol with nothing pending', async () => {
    const v = venue({ [BTC]: spread(150, NOW - 200_000, NOW), [ETH]: [T0 + 5] });
    const got = await fetchHistory(directRead, v.port, [unknownEth], [BTC, ETH], CFG, NOW);
    expect(got.coversSince).toBeLessThanOrEqual(unknownEth.createdAt);
  });

  it('asks again for the pending span when the look-back alone filled the page', async () => {
    // 120 ETH orders in the look-back, but only 10 since the unknown order (minus the skew).
    const v = venue({
      [ETH]: [...spread(110, NOW - 290_000, T0 - 31_000), ...spread(10, T0 + 1, NOW)],
    });
    const got = await fetchHistory(directRead, v.port, [unknownEth], [ETH], CFG, NOW);
    expect(got.coversSince).toBe(T0 - CFG.skewMs);
    expect(v.queries.map((q) => q.createDate)).toEqual([NOW - CFG.lookbackMs, T0 - CFG.skewMs]);
  });

  it('proves nothing when the pending orders of a symbol really had a page of orders since', async () => {
    const v = venue({ [ETH]: spread(100, T0 + 1, NOW), [BTC]: [T0] });
    const got = await fetchHistory(directRead, v.port, [unknownEth], [BTC, ETH], CFG, NOW);
    expect(got.coversSince).toBe(NOW + 1);
    // A second pending symbol cannot lift that.
    const openBtc = localOrder(2, { status: 'open', createdAt: T0 + 1_000 });
    const both = await fetchHistory(directRead, v.port, [unknownEth, openBtc], [BTC, ETH], CFG, NOW);
    expect(both.coversSince).toBe(NOW + 1);
  });

  it('narrows to the unacknowledged orders, not to an older order resting in the book', async () => {
    // An ETH order has rested since long before; 150 orders since it, 10 since the unknown one.
    const resting = localOrder(3, {
      symbol: ETH,
      status: 'open',
      orderId: orderId('900000000000000001'),
      createdAt: T0 - 3_600_000,
    });
    const v = venue({
      [ETH]: [T0 - 3_600_000, ...spread(140, T0 - 3_500_000, T0 - 31_000), ...spread(10, T0 + 1, NOW)],
    });
    const got = await fetchHistory(directRead, v.port, [resting, unknownEth], [ETH], CFG, NOW);
    expect(v.queries.map((q) => q.createDate)).toEqual([T0 - 3_600_000 - CFG.skewMs, T0 - CFG.skewMs]);
    expect(got.coversSince).toBe(T0 - CFG.skewMs);
  });

  it('asks once per symbol when the first page is not full', async () => {
    const v = venue({ [ETH]: spread(20, NOW - 290_000, NOW) });
    const got = await fetchHistory(directRead, v.port, [unknownEth], [ETH], CFG, NOW);
    expect(v.queries).toHaveLength(1);
    expect(got.coversSince).toBe(NOW - CFG.lookbackMs);
  });

  it('needs no coverage when no order is pending', async () => {
    const v = venue({ [BTC]: [T0], [ETH]: [T0] });
    const got = await fetchHistory(
      directRead,
      v.port,
      [localOrder(3, { status: 'filled' })],
      [BTC, ETH],
      CFG,
      NOW,
    );
    expect(got.coversSince).toBe(NOW + 1);
  });
});
