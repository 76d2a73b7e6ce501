// What the run notifies (src/runner/notify.ts), on a stand-in engine: a halt or reduce, a disabled
// strategy, an order anomaly, the kill switch, fills and reconciliation warnings of a round — each as
// its event kind to the targets that take it; a target's event filter is honoured.
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { parseConfigText } from '../../src/config/load.ts';
import { dec } from '../../src/core/decimal.ts';
import type { ClientOid, OrderId, StrategyId, SymbolId, TradeId } from '../../src/core/ids.ts';
import type { Order } from '../../src/core/orders.ts';
import type { EngineEvent } from '../../src/engine/events.ts';
import type { RoundResult } from '../../src/reconcile/round.ts';
import { startRunNotifications, type RunNotifications } from '../../src/runner/notify.ts';
import { sendJson, startLocalServer, type LocalServer } from '../helpers/local-server.ts';

let server: LocalServer | undefined;
let notes: RunNotifications | undefined;
afterEach(async () => {
  await notes?.close();
  await server?.close();
});

describe('run notifications', () => {
  it('turns engine events, rounds and the kill switch into notices', async () => {
    server = await startLocalServer((_req, res) => sendJson(res, 200, {}));
    const config = parseConfigText(
      ['strategies:', '  - id: a', '    file: x.ts', 'notify:', '  maxPerMinute: 600', ''].join('\n'),
      'n.yaml',
      {},
    );
    const events = new Subject<EngineEvent>();
    notes = startRunNotifications({
      config,
      targets: [
        {
          name: 'all',
          format: 'json',
          url: `${server.url}/all`,
          events: ['fill', 'halt', 'kill', 'reconcile', 'disabled', 'daily'],
        },
        { name: 'alarms', format: 'json', url: `${server.url}/alarms`, events: ['halt', 'kill'] },
      ],
      engine: {
        events$: events.asObservable(),
        pnl: () => ({ realized: dec('0'), unrealized: dec('0'), fees: dec('0'), net: dec('0') }),
        tradingState: () => 'ACTIVE',
        openOrders: () => [],
      },
      store: { getOrder: () => ({ strategy: 'a' as StrategyId }) as Order },
      log: pino({ level: 'silent' }),
    });
    events.next({ kind: 'TradingStateChanged', at: 1, from: 'ACTIVE', to: 'HALTED', reason: 'drawdown 10%' });
    events.next({ kind: 'TradingStateChanged', at: 2, from: 'HALTED', to: 'ACTIVE', reason: 'reset' });
    events.next({ kind: 'StrategyDisabled', at: 3, strategy: 'a' as StrategyId, reason: 'threw' });
    events.next({
      kind: 'OrderAnomaly',
      at: 4,
      clientOid: 'cb-a-1' as ClientOid,
      event: 'OrderFilled',
      anomaly: { kind: 'overfill', detail: 'more than the size' },
    });
    notes.killed('operator kill from pid 7');
    notes.round({
      at: 5,
      full: true,
      corrections: {},
      warnings: [{ code: 'order-lost', message: 'cb-a-2 is gone' }],
      fillsForEngine: [
        {
          tradeId: 't1' as TradeId,
          orderId: 'o1' as OrderId,
          clientOid: 'cb-a-1' as ClientOid,
          symbol: 'cmt_btcusdt' as SymbolId,
          positionSide: 'LONG',
          orderSide: 'BUY',
          direction: 'OPEN_LONG',
          size: dec('0.5'),
          value: dec('50'),
          fee: dec('0.01'),
          realizedPnl: dec('0'),
          createdTime: 5,
        },
      ],
    } as unknown as RoundResult);
    await notes.close();
    notes = undefined;
    const of = (path: string) =>
      server!
        .to(path)
        .map((r) => JSON.parse(r.body) as { event: string; text: string; data: Record<string, unknown> });
    expect(of('/all').map((n) => n.event)).toEqual([
      'halt',
      'disabled',
      'reconcile',
      'kill',
      'fill',
      'reconcile',
    ]);
    expect(of('/alarms').map((n) => n.event)).toEqual(['halt', 'kill']);
    const fill = of('/all').find((n) => n.event === 'fill');
    expect(fill?.text).toBe('a: open_long 0.5 cmt_btcusdt @ 100, fee 0.01, PnL 0');
    expect(fill?.data).toMatchObject({ strategy: 'a', price: '100', size: '0.5', tradeId: 't1' });
    expect(of('/all')[0]?.text).toBe('trading ACTIVE → HALTED: drawdown 10%');
  });
});
