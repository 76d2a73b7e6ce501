// The run's notifications (config `notify:`): engine events, reconciliation rounds and the kill
// switch become notices for the webhook targets (src/notify/). Everything here only hands notices to
// the notifier, which returns at once: nothing waits on a webhook, and nothing here throws into the
// engine's event stream (a failing formatter is logged and skipped).
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import type { Config } from '../config/schema.ts';
import { decToString } from '../core/decimal.ts';
import type { Engine } from '../engine/engine.ts';
import type { RoundResult } from '../reconcile/round.ts';
import { everyDayAt } from '../notify/daily.ts';
import { notifyMetrics } from '../notify/metrics.ts';
import { createNotifier, type Notifier } from '../notify/notifier.ts';
import type { Notice, NotifyTarget } from '../notify/types.ts';
import type { OrderStore } from '../store/port.ts';

export interface RunNotificationsDeps {
  readonly config: Config;
  readonly targets: readonly NotifyTarget[];
  readonly engine: Pick<Engine, 'events$' | 'pnl' | 'tradingState' | 'openOrders'>;
  readonly store: Pick<OrderStore, 'getOrder'>;
  readonly registry?: Registry | undefined;
  readonly log: Logger;
  readonly now?: () => number;
}

export interface RunNotifications {
  round(r: RoundResult): void;
  /** The kill switch was engaged (from `capibot kill` or the console). */
  killed(reason: string): void;
  /** Something else worth saying (a console pause / resume). */
  say(kind: Notice['kind'], title: string, text: string): void;
  close(): Promise<void>;
}

export function startRunNotifications(d: RunNotificationsDeps): RunNotifications {
  const now = d.now ?? Date.now;
  const log = d.log.child({ component: 'notify' });
  const notifier: Notifier = createNotifier({
    targets: d.targets,
    settings: d.config.notify,
    metrics: notifyMetrics(d.registry),
    log: d.log,
    now,
  });
  const safely = (fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      log.error({ err: e }, 'notification could not be prepared');
    }
  };
  const notice = (kind: Notice['kind'], title: string, text: string, data: Notice['data'] = {}): void =>
    notifier.send({ kind, at: now(), title, text, data });
  let fillsToday = 0;

  const sub: Subscription = d.engine.events$.subscribe((e) =>
    safely(() => {
      if (e.kind === 'StrategyDisabled')
        notice('disabled', `capibot: strategy ${e.strategy} disabled`, e.reason, { strategy: e.strategy });
      else if (e.kind === 'TradingStateChanged' && e.to !== 'ACTIVE')
        notice('halt', `capibot: ${e.to}`, `trading ${e.from} → ${e.to}: ${e.reason}`, {
          from: e.from,
          to: e.to,
          reason: e.reason,
        });
      else if (e.kind === 'OrderAnomaly')
        notice(
          'reconcile',
          'capibot: order anomaly',
          `${e.clientOid} (${e.event}): ${e.anomaly.kind}: ${e.anomaly.detail}`,
          {
            clientOid: e.clientOid,
            anomaly: e.anomaly.kind,
          },
        );
    }),
  );

  const stopDaily = everyDayAt(
    d.config.notify.dailySummaryUtcHour,
    () =>
      safely(() => {
        const p = d.engine.pnl();
        const data = {
          tradingState: d.engine.tradingState(),
          realized: decToString(p.realized),
          unrealized: decToString(p.unrealized),
          fees: decToString(p.fees),
          net: decToString(p.net),
          fills: fillsToday,
          openOrders: d.engine.openOrders().length,
        };
        fillsToday = 0;
        notice(
          'daily',
          'capibot: daily summary',
          `${data.tradingState}; net PnL ${data.net} (realized ${data.realized}, unrealized ${data.unrealized}, ` +
            `fees ${data.fees}); ${data.fills} fill(s) in the last day; ${data.openOrders} open order(s)`,
          data,
        );
      }),
    now,
  );

  return {
    round: (r) =>
      safely(() => {
        for (const f of r.fillsForEngine) {
          fillsToday++;
          const strategy = f.clientOid !== undefined ? d.store.getOrder(f.clientOid)?.strategy : undefined;
          const price = f.size.gt(0) ? decToString(f.value.div(f.size).round(8)) : '0';
          const side = f.direction !== '' ? f.direction.toLowerCase() : f.orderSide;
          notice(
            'fill',
            `capibot: fill ${f.symbol}`,
            `${strategy ?? 'unattributed'}: ${side} ${decToString(f.size)} ${f.symbol} @ ${price}, fee ${decToString(f.fee)}, PnL ${decToString(f.realizedPnl)}`,
            {
              strategy: strategy ?? null,
              symbol: f.symbol,
              side,
              size: decToString(f.size),
              price,
              fee: decToString(f.fee),
              realizedPnl: decToString(f.realizedPnl),
              tradeId: f.tradeId,
            },
          );
        }
        if (r.warnings.length > 0)
          notice(
            'reconcile',
            `capibot: reconciliation found ${r.warnings.length} mismatch(es)`,
            r.warnings.map((w) => `${w.code}: ${w.message}`).join('\n'),
            { warnings: r.warnings.length, codes: [...new Set(r.warnings.map((w) => w.code))].join(',') },
          );
      }),
    killed: (reason) => safely(() => notice('kill', 'capibot: kill switch engaged', reason, { reason })),
    say: (kind, title, text) => safely(() => notice(kind, title, text)),
    close: async () => {
      sub.unsubscribe();
      stopDaily();
      await notifier.close(2_000);
    },
  };
}
