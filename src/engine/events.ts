// Everything the engine publishes on `events$`: strategy output, risk refusals, order lifecycle,
// anomalies and trading-state changes. Facts, in the order they happened; consumers (logs, metrics,
// reports, tests) never feed back into the engine through this stream.
import type { Dec } from '../core/decimal.ts';
import type { OrderEvent } from '../core/events.ts';
import type { ClientOid, StrategyId } from '../core/ids.ts';
import type { Intent, PlaceIntent } from '../core/intents.ts';
import type { OrderAnomaly } from '../core/order-reducer.ts';
import type { Order } from '../core/orders.ts';
import type { RiskRefused } from '../risk/decision.ts';
import type { TradingState } from '../risk/trading-state.ts';
import type { StrategyDisabled, StrategyIntentEmitted } from '../strategy/host.ts';

/** An approved placement was written to the store (status `created`) and queued. */
export interface OrderCreated {
  readonly kind: 'OrderCreated';
  readonly at: number;
  readonly order: Order;
}

/** An approved intent that had nothing to act on (e.g. a cancel of an unknown or finished order). */
export interface IntentIgnored {
  readonly kind: 'IntentIgnored';
  readonly at: number;
  readonly strategy: StrategyId;
  readonly intent: Intent;
  readonly reason: string;
}

/**
 * A close intent larger than the closable size (src/risk/closable.ts) was shrunk to it; `intent` is
 * as the strategy asked, `size` what was placed.
 */
export interface CloseCapped {
  readonly kind: 'CloseCapped';
  readonly at: number;
  readonly strategy: StrategyId;
  readonly intent: PlaceIntent;
  readonly size: Dec;
  readonly closable: Dec;
}

/** The reducer flagged an event (contradiction, overfill, bug); the order may be unchanged. */
export interface OrderAnomalyRaised {
  readonly kind: 'OrderAnomaly';
  readonly at: number;
  readonly clientOid: ClientOid;
  readonly event: OrderEvent['kind'];
  readonly anomaly: OrderAnomaly;
}

export interface TradingStateChanged {
  readonly kind: 'TradingStateChanged';
  readonly at: number;
  readonly from: TradingState;
  readonly to: TradingState;
  readonly reason: string;
}

/** The engine stopped on an error it cannot handle (the store refused a write). */
export interface EngineFailed {
  readonly kind: 'EngineFailed';
  readonly at: number;
  readonly message: string;
}

export type EngineEvent =
  | StrategyIntentEmitted
  | StrategyDisabled
  | RiskRefused
  | IntentIgnored
  | CloseCapped
  | OrderCreated
  | OrderEvent
  | OrderAnomalyRaised
  | TradingStateChanged
  | EngineFailed;

export type EngineEventKind = EngineEvent['kind'];
