import { describe, expect, it } from 'vitest';
import { dec, type Order } from '../src/strategy/index.ts';
import {
  backtestConfig,
  describeIntent,
  hold,
  ramp,
  runStrategy,
  series,
} from '../src/strategy/testing/index.ts';
import grid from './grid.ts';

const BTC = 'cmt_btcusdt';
const THREE = { levels: 3, spacingBps: '4', levelNotional: '200', maxInventoryLevels: 3 };

const tagged = (orders: readonly Order[], tag: string) => orders.filter((o) => o.tag === tag);

describe('grid', () => {
  it('places the symmetric levels around the mid at start, in one batch', async () => {
    const run = await runStrategy({ strategy: grid, params: THREE, ticks: series(hold('64000', 3)) });
    // Reference 64000; level k sits k × 4 bps away (25.6), rounded away from the reference to the tick.
    expect(run.intents.map((i) => describeIntent(i.intent))).toEqual([
      'place open_long 0.0031 @ 63974.4 postOnly #grid:e-1',
      'place open_short 0.0031 @ 64025.6 postOnly #grid:e1',
      'place open_long 0.0031 @ 63948.8 postOnly #grid:e-2',
      'place open_short 0.0031 @ 64051.2 postOnly #grid:e2',
      'place open_long 0.0031 @ 63923.2 postOnly #grid:e-3',
      'place open_short 0.0031 @ 64076.8 postOnly #grid:e3',
    ]);
    expect(new Set(run.intents.map((i) => i.at)).size).toBe(1);
    expect(run.summary.requestsByEndpoint['batchOrders']).toBe(1);
    expect(run.orders.every((o) => o.status === 'open')).toBe(true);
  });

  it('rests the exit one level up when a buy fills, and re-arms the buy when the exit fills', async () => {
    // Down through level −1 (ask must trade below 63974.4), back up through the reference (bid above 64000).
    const prices = [...hold('64000', 3), ...hold('63970', 4), ...hold('64001', 4), ...hold('64000', 4)];
    const run = await runStrategy({ strategy: grid, params: THREE, ticks: series(prices) });
    const entries = tagged(run.orders, 'grid:e-1');
    const exits = tagged(run.orders, 'grid:x-1');
    expect(entries.map((o) => `${o.price?.toFixed() ?? ''} ${o.status}`)).toEqual([
      '63974.4 filled',
      '63974.4 open',
    ]);
    expect(exits.map((o) => `${o.side} ${o.price?.toFixed() ?? ''} ${o.status}`)).toEqual([
      'close_long 64000 filled',
    ]);
    // Order of events: entry filled → exit placed → exit filled → entry re-armed.
    const [first, rearmed] = entries;
    const exit = exits[0];
    expect(first?.updatedAt).toBeLessThanOrEqual(exit?.createdAt ?? 0);
    expect(exit?.updatedAt).toBeLessThanOrEqual(rearmed?.createdAt ?? 0);
    expect(run.summary.positions[BTC]).toEqual({ long: dec(0), short: dec(0) });
    // One grid step earned on 0.0031 BTC (maker both ways), before fees.
    expect(run.summary.realizedPnl.toFixed()).toBe(dec('25.6').times('0.0031').toFixed());
    expect(run.orders.every((o) => o.orderType === 'postOnly')).toBe(true);
  });

  it('bounds inventory: a fall through every level buys at most maxInventoryLevels sizes', async () => {
    const prices = [...hold('64000', 2), ...ramp('64000', '63700', 30, '0.1'), ...hold('63700', 4)];
    const run = await runStrategy({
      strategy: grid,
      params: { ...THREE, levels: 5, maxInventoryLevels: 2 },
      ticks: series(prices),
    });
    const buys = run.orders.filter((o) => o.side === 'open_long');
    expect(buys.map((o) => o.tag)).toEqual(['grid:e-1', 'grid:e-2']);
    expect(run.summary.positions[BTC]?.long.toFixed()).toBe('0.0062');
    // The sells above were never bounded by the long inventory.
    expect(run.orders.filter((o) => o.side === 'open_short')).toHaveLength(2);
  });

  it('re-centres on the mid while flat once the market moved away', async () => {
    const prices = [...hold('64000', 2), ...ramp('64000', '64064', 5, '0.1'), ...hold('64064', 4)];
    const run = await runStrategy({
      strategy: grid,
      params: { levels: 1, spacingBps: '50', recenterBps: '5' },
      ticks: series(prices),
    });
    expect(run.orders.map((o) => `${o.tag ?? ''} ${o.price?.toFixed() ?? ''} ${o.status}`)).toEqual([
      'grid:e-1 63680 canceled',
      'grid:e1 64320 canceled',
      // 64048 is 7.5 bps away: the old grid is cancelled; the next tick (64064) finds it gone and
      // centres there (±0.5 %).
      'grid:e-1 63743.6 open',
      'grid:e1 64384.4 open',
    ]);
  });

  it('backtests config/grid.yaml on the bundled sample: post-only, re-arming, inventory within bounds', async () => {
    const { record, summary } = await backtestConfig('config/grid.yaml');
    expect(summary.fills).toBeGreaterThanOrEqual(3);
    const orders = [...record.orders].sort((a, b) => a.createdAt - b.createdAt);
    expect(orders.every((o) => o.orderType === 'postOnly')).toBe(true);
    // Some level filled, exited and was armed again.
    const rearmed = orders.filter(
      (o, i) =>
        o.tag?.startsWith('grid:e') === true &&
        orders.slice(0, i).some((p) => p.tag === o.tag && p.status === 'filled'),
    );
    expect(rearmed.length).toBeGreaterThanOrEqual(1);
    // Inventory per side never beyond maxInventoryLevels (3) level sizes, replaying the fills.
    const size = orders[0]?.size ?? dec(0);
    let long = dec(0);
    let short = dec(0);
    const sideOf = new Map(orders.map((o) => [o.clientOid as string, o.side]));
    for (const f of record.fills) {
      const side = sideOf.get(f.clientOid ?? '');
      if (side === 'open_long') long = long.plus(f.size);
      if (side === 'close_long') long = long.minus(f.size);
      if (side === 'open_short') short = short.plus(f.size);
      if (side === 'close_short') short = short.minus(f.size);
      expect(long.lte(size.times(3)) && short.lte(size.times(3))).toBe(true);
    }
    expect(summary.ordersRejected).toBe(0);
    expect(summary.responses429).toBe(0);
  });
});
