// The console's live source (src/console/live-source.ts) on a stand-in engine and store: fills from
// reconciliation rounds (newest first, attributed to their strategy, positions folded per strategy),
// the event log, disabled and paused strategies, equity samples, and that nothing it does can throw
// into the engine's event stream.
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLiveSource } from '../../src/console/live-source.ts';
import { dec } from '../../src/core/decimal.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId, TradeId } from '../../src/core/ids.ts';
import type { Order } from '../../src/core/orders.ts';
import type { EngineEvent } from '../../src/engine/events.ts';
import { RECONCILE_META } from '../../src/reconcile/pollers.ts';
import type { RoundResult } from '../../src/reconcile/round.ts';
import type { StoredFill } from '../../src/store/port.ts';

const BTC = 'cmt_btcusdt' as SymbolId;

function fill(
  n: number,
  oid: string,
  direction: 'OPEN_LONG' | 'CLOSE_LONG',
  price: string,
  pnl = '0',
): StoredFill {
  return {
    tradeId: `t${n}` as TradeId,
    orderId: `o${n}` as OrderId,
    clientOid: oid as ClientOid,
    symbol: BTC,
    positionSide: 'LONG',
    orderSide: direction === 'OPEN_LONG' ? 'BUY' : 'SELL',
    direction,
    size: dec('2'),
    value: dec(price).times(2),
    fee: dec('0.1'),
    realizedPnl: dec(pnl),
    createdTime: 1_000 * n,
  };
}

function setup() {
  const events = new Subject<EngineEvent>();
  const fills: StoredFill[] = [];
  const orders = new Map<string, Pick<Order, 'strategy' | 'side'>>([
    ['cb-a-1', { strategy: 'a' as StrategyId, side: 'open_long' }],
    ['cb-a-2', { strategy: 'a' as StrategyId, side: 'close_long' }],
    ['cb-b-1', { strategy: 'b' as StrategyId, side: 'open_long' }],
  ]);
  let pnlThrows = false;
  const paused = new Set<string>();
  const pool = { used: 1, limit: 10, remaining: 9 };
  const engine = {
    events$: events.asObservable(),
    strategies: [
      { id: 'a', name: 'grid', version: '1' },
      { id: 'b', name: 'grid', version: '1' },
    ],
    tradingState: () => 'ACTIVE' as const,
    pnl: () => {
      if (pnlThrows) throw new Error('boom');
      return { realized: dec('1'), unrealized: dec('-0.5'), fees: dec('0.2'), net: dec('0.3') };
    },
    openOrders: () => [],
    metrics: () => ({ budget: { ip: pool, uid: pool, orderRate: pool, backoffMs: 0 } }),
  };
  const errors: string[] = [];
  const log = { error: (_o: unknown, m: string) => errors.push(m) };
  const source = createLiveSource({
    mode: 'paper',
    title: 't',
    engine: engine as never,
    store: {
      getMeta: (k) => (k === RECONCILE_META.lastReconciledAt ? '12345' : undefined),
      allFills: () => fills,
      getOrder: (oid) => orders.get(oid) as Order | undefined,
    },
    pauses: { isPaused: (s) => paused.has(s), dropped: () => 3 },
    control: { pause: () => true, resume: () => true, kill: () => true },
    startingEquity: dec('1000'),
    now: () => 5_000,
    sampleMs: 60_000,
    log: log as never,
  });
  const round = (newFills: StoredFill[], warnings = 0): void => {
    fills.push(...newFills);
    source.round({
      at: 9,
      full: true,
      corrections: { adopted: 2 },
      warnings: Array.from({ length: warnings }, () => ({ code: 'order-lost', message: 'gone' })),
      fillsForEngine: newFills,
    } as unknown as RoundResult);
  };
  return { source, events, round, paused, errors, setPnlThrows: (v: boolean) => (pnlThrows = v) };
}

describe('the live console source', () => {
  it('shows fills newest first, positions per strategy, the event log and the strategy states', () => {
    const t = setup();
    let changes = 0;
    t.source.onChange(() => changes++);
    t.round([fill(1, 'cb-a-1', 'OPEN_LONG', '100'), fill(2, 'cb-b-1', 'OPEN_LONG', '101')]);
    t.round([fill(3, 'cb-a-2', 'CLOSE_LONG', '110', '20')], 1);
    t.events.next({ kind: 'StrategyDisabled', strategy: 'b' as StrategyId, reason: 'threw', at: 7 });
    t.paused.add('a');
    const s = t.source.snapshot();
    expect(changes).toBeGreaterThanOrEqual(3);
    expect(s.fills.map((f) => [f.tradeId, f.strategy, f.side, f.price])).toEqual([
      ['t3', 'a', 'close_long', '110'],
      ['t2', 'b', 'open_long', '101'],
      ['t1', 'a', 'open_long', '100'],
    ]);
    const [a, b] = s.strategies;
    expect(a).toMatchObject({
      id: 'a',
      state: 'paused',
      droppedWhilePaused: 3,
      positions: [],
      realizedPnl: '20',
      fees: '0.2',
    });
    expect(b).toMatchObject({ id: 'b', state: 'disabled', disabledReason: 'threw' });
    expect(b?.positions).toEqual([
      { symbol: BTC, leg: 'long', qty: '2', avgEntry: '101', realizedPnl: '0', fees: '0.1' },
    ]);
    expect(s.pnl).toEqual({ realized: '1', unrealized: '-0.5', fees: '0.2', net: '0.3' });
    expect(s.equity).toEqual([{ t: 5_000, v: 1000.3 }]);
    expect(s.reconcile).toEqual({ lastReconciledAt: 12345, lastRoundAt: 5_000, corrections: 4, warnings: 1 });
    expect(s.events.map((e) => e.text)).toEqual(['b disabled: threw', 'order-lost: gone']);
    t.source.stop();
  });

  it('never throws into the engine: a failing event line is logged and skipped', () => {
    const t = setup();
    // A malformed event (as a bug elsewhere could send) does not escape the subscriber.
    expect(() => t.events.next({ kind: 'OrderAnomaly' } as unknown as EngineEvent)).not.toThrow();
    expect(t.errors).toEqual(['console: an event line failed']);
    // A failing engine read only fails the snapshot (answered 500 by the server), not the source.
    t.setPnlThrows(true);
    expect(() => t.source.snapshot()).toThrow('boom');
    t.setPnlThrows(false);
    expect(t.source.snapshot().tradingState).toBe('ACTIVE');
    t.source.stop();
  });
});
