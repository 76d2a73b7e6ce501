// Events: past-tense facts about orders. The order reducer applies them through the transition table.
import type { Dec } from './decimal.ts';
import type { ClientOid, OrderId, TradeId } from './ids.ts';
import type { FillReport } from './reports.ts';

interface Base {
  readonly clientOid: ClientOid;
  /** Epoch ms (clock time when the fact was learned). */
  readonly at: number;
}

export type OrderEvent =
  | (Base & { readonly kind: 'OrderSubmitted' })
  | (Base & { readonly kind: 'OrderAccepted'; readonly orderId: OrderId })
  | (Base & { readonly kind: 'OrderRejected'; readonly code: string; readonly reason: string })
  | (Base & { readonly kind: 'OrderOutcomeUnknown'; readonly reason: string })
  /** The exchange reports the order resting (open) or in matching (pending). */
  | (Base & { readonly kind: 'OrderOpen'; readonly orderId: OrderId; readonly pending: boolean })
  | (Base & {
      readonly kind: 'OrderFilled';
      readonly orderId: OrderId;
      readonly tradeId: TradeId;
      readonly fill: FillReport;
    })
  /** Exchange-reported cumulative progress from order history (fills may still be missing). */
  | (Base & {
      readonly kind: 'OrderProgress';
      readonly orderId: OrderId;
      readonly filledQty: Dec;
      readonly avgPrice?: Dec;
    })
  | (Base & { readonly kind: 'CancelRequested' })
  /**
   * The exchange took our cancel (`result: true`). NOT the end of the order: the venue may still fill
   * it before the cancel takes effect (weex-facts.md §9, `canceling`), so it stays `canceling` until
   * order history or fills show its terminal state. Carries the order id the reply names, if any.
   */
  | (Base & { readonly kind: 'CancelAccepted'; readonly orderId?: OrderId })
  | (Base & { readonly kind: 'CancelRejected'; readonly code: string; readonly reason: string })
  | (Base & { readonly kind: 'OrderCanceled'; readonly filledQty?: Dec; readonly reason?: string })
  | (Base & { readonly kind: 'OrderCompleted'; readonly filledQty: Dec; readonly avgPrice?: Dec })
  /** Declared lost: no trace at the exchange after the grace period. */
  | (Base & { readonly kind: 'OrderLost'; readonly reason: string });

export type OrderEventKind = OrderEvent['kind'];
