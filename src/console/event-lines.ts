// Engine events as one-line entries of the console's event log. Only what an operator reads is kept
// (order creation, rejections, cancels, fills, risk refusals, state changes, anomalies); the many
// intermediate lifecycle steps (submitted, accepted, open, progress) would drown them.
import { decToString } from '../core/decimal.ts';
import type { EngineEvent } from '../engine/events.ts';
import type { ConsoleEventLine } from './types.ts';

export function eventLine(e: EngineEvent): ConsoleEventLine | undefined {
  const line = (level: ConsoleEventLine['level'], text: string): ConsoleEventLine => ({
    at: e.at,
    level,
    kind: e.kind,
    text,
  });
  switch (e.kind) {
    case 'OrderCreated': {
      const o = e.order;
      const price = o.price !== undefined ? ` @ ${decToString(o.price)}` : ' market';
      const trigger = o.triggerPrice !== undefined ? ` trigger ${decToString(o.triggerPrice)}` : '';
      return line(
        'info',
        `${o.strategy}: ${o.side} ${decToString(o.size)} ${o.symbol}${price}${trigger} (${o.clientOid})`,
      );
    }
    case 'OrderFilled':
      return line(
        'info',
        `fill ${decToString(e.fill.size)} ${e.fill.symbol} value ${decToString(e.fill.value)} (${e.clientOid})`,
      );
    case 'OrderRejected':
      return line('warn', `rejected ${e.clientOid}: ${e.code} ${e.reason}`);
    case 'OrderOutcomeUnknown':
      return line('warn', `outcome unknown ${e.clientOid}: ${e.reason}`);
    case 'OrderCanceled':
      return line('info', `canceled ${e.clientOid}${e.reason !== undefined ? `: ${e.reason}` : ''}`);
    case 'OrderCompleted':
      return line('info', `completed ${e.clientOid} (${decToString(e.filledQty)} filled)`);
    case 'CancelRejected':
      return line('warn', `cancel refused ${e.clientOid}: ${e.code} ${e.reason}`);
    case 'OrderLost':
      return line('error', `lost ${e.clientOid}: ${e.reason}`);
    case 'RiskRefused':
      return line('warn', `${e.strategy}: refused by the risk gate (${e.reason}): ${e.detail}`);
    case 'CloseCapped':
      return line('info', `${e.strategy}: close capped to ${decToString(e.size)}`);
    case 'StrategyDisabled':
      return line('error', `${e.strategy} disabled: ${e.reason}`);
    case 'TradingStateChanged':
      return line(e.to === 'ACTIVE' ? 'info' : 'error', `trading ${e.from} → ${e.to}: ${e.reason}`);
    case 'OrderAnomaly':
      return line('error', `anomaly on ${e.clientOid} (${e.event}): ${e.anomaly.kind}: ${e.anomaly.detail}`);
    case 'EngineFailed':
      return line('error', `engine failed: ${e.message}`);
    case 'OrderSubmitted':
    case 'OrderAccepted':
    case 'OrderOpen':
    case 'OrderProgress':
    case 'CancelRequested':
    case 'CancelAccepted':
    case 'IntentIgnored':
    case 'StrategyIntent':
      return undefined;
  }
}

/** A bounded list, newest first. */
export class Ring<T> {
  readonly #items: T[] = [];
  readonly #limit: number;
  constructor(limit: number) {
    this.#limit = limit;
  }
  push(x: T): void {
    this.#items.unshift(x);
    if (this.#items.length > this.#limit) this.#items.length = this.#limit;
  }
  items(): readonly T[] {
    return this.#items.slice();
  }
}
