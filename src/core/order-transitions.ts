// The order state machine: ONE table over every (status, event) pair. The reducer (order-reducer.ts)
// is the only caller that changes state; it computes the two facts the table cannot see (is the order
// acknowledged, does this event complete it) and applies quantities.
//
// Rules the table encodes (ARCHITECTURE.md invariant 4):
// - Stale or out-of-order exchange events never move an order backwards: they leave the status as it
//   is (`stay`), they are not errors. The rank order is
//     created < submitted < unknown < untriggered < pending < open < canceling < filled | canceled | rejected.
//   The ONLY downward moves are the answer to our own cancel: CancelRejected takes `canceling` back
//   to `open` (acknowledged orders) or to `unknown` (never acknowledged), see the canceling row.
// - Terminal states (filled, canceled, rejected) absorb every event. Fills that arrive after a cancel
//   are still recorded by the reducer (quantity grows) but the status stays.
// - The answer `result: true` to our cancel (CancelAccepted) does NOT end the order: the venue may
//   still fill it before the cancel takes effect (`canceling` is a real venue state). The order stays
//   `canceling` until order history (OrderCanceled / OrderCompleted with the final filled quantity)
//   or fills (a fill that completes it) show its terminal state; a fill in between is a normal fill.
// - `unknown` resolves to whatever the exchange reports.
// - Only our own sending events can be invalid (a bug in the engine, not a race): a second
//   OrderSubmitted, a CancelRequested before anything was sent, OrderLost for an order the exchange
//   has acknowledged.
import type { OrderEvent, OrderEventKind } from './events.ts';
import type { OrderStatus } from './orders.ts';

/** What the reducer knows about the order that the (status, event) pair does not say. */
export interface TransitionFacts {
  /** The exchange has acknowledged the order: it has an exchange order id. */
  readonly acknowledged: boolean;
  /** With this event's quantity applied, the filled quantity reaches the order size. */
  readonly complete: boolean;
  /**
   * The order is a plan (trigger) order whose child order is not known yet: the exchange's
   * acceptance leaves it `untriggered`, and a refused cancel takes it back there. Absent: false.
   */
  readonly untriggeredPlan?: boolean;
}

export interface InvalidTransition {
  readonly kind: 'InvalidTransition';
  readonly from: OrderStatus;
  readonly event: OrderEventKind;
  readonly reason: string;
}

export function isInvalidTransition(x: OrderStatus | InvalidTransition): x is InvalidTransition {
  return typeof x !== 'string';
}

/** Position of each status along an order's life; used to state "never backwards". */
export const STATUS_RANK: Readonly<Record<OrderStatus, number>> = {
  created: 0,
  submitted: 1,
  unknown: 2,
  untriggered: 3,
  pending: 4,
  open: 5,
  canceling: 6,
  filled: 7,
  canceled: 7,
  rejected: 7,
};

type Cell = (event: OrderEvent, facts: TransitionFacts, from: OrderStatus) => OrderStatus | InvalidTransition;

// ---- cell builders -------------------------------------------------------------------------------

const to =
  (status: OrderStatus): Cell =>
  () =>
    status;

/** Keep the current status: a duplicate, a stale report, or a terminal state absorbing. */
const stay: Cell = (_e, _f, from) => from;

const invalid =
  (reason: string): Cell =>
  (e, _f, from) => ({ kind: 'InvalidTransition', from, event: e.kind, reason });

const ifAcknowledged =
  (yes: Cell, no: Cell): Cell =>
  (e, f, from) =>
    f.acknowledged ? yes(e, f, from) : no(e, f, from);

/** The exchange accepted the placement: a plan rests `untriggered`, an order is in matching. */
const accepted: Cell = (_e, f) => (f.untriggeredPlan === true ? 'untriggered' : 'pending');

/** OrderOpen from before the order was seen resting: `pending` (in matching) or `open`. */
const openOrPending: Cell = (e) => (e.kind === 'OrderOpen' && e.pending ? 'pending' : 'open');

/** Is there evidence of a filled quantity in the event (a fill, or reported progress above zero)? */
function showsQuantity(e: OrderEvent): boolean {
  if (e.kind === 'OrderFilled') return true;
  if (e.kind === 'OrderProgress') return e.filledQty.gt(0);
  // Stryker disable next-line BooleanLiteral: unreachable, fillLive (the only caller) is in the OrderFilled and OrderProgress columns only
  return false;
}

/**
 * A fill (or reported progress) on a live order before any cancel: completes it, or proves it reached
 * the book (`open`). Progress with nothing filled only proves the order exists (`pending`, unless it
 * is already further along).
 */
const fillLive: Cell = (e, f, from) => {
  if (f.complete) return 'filled';
  if (showsQuantity(e)) return 'open';
  return STATUS_RANK[from] < STATUS_RANK.pending ? 'pending' : from;
};

/** A fill while our cancel is in flight: the fill may win the race. */
const fillCanceling: Cell = (_e, f, from) => (f.complete ? 'filled' : from);

const DOUBLE_SUBMIT = invalid('the order was already submitted: a placement is never sent twice');
const LOST_BUT_KNOWN = invalid('the exchange acknowledged this order: it cannot be declared lost');

// ---- the table -----------------------------------------------------------------------------------

const TABLE: Readonly<Record<OrderStatus, Readonly<Record<OrderEventKind, Cell>>>> = {
  // Written to the store; no request sent yet (as far as we know).
  created: {
    OrderSubmitted: to('submitted'),
    // Exchange facts on a `created` order: the crash window between the request leaving and
    // `submitted` being committed. The exchange is right.
    OrderAccepted: accepted,
    OrderRejected: to('rejected'), // refused by the exchange, or locally (risk gate, superseded)
    OrderOutcomeUnknown: to('unknown'),
    OrderOpen: openOrPending,
    OrderFilled: fillLive,
    OrderProgress: fillLive,
    CancelRequested: invalid('nothing was sent: cancel it locally with OrderCanceled'),
    CancelRejected: stay, // no cancel in flight: nothing to undo
    // An answer is a fact, never an error: the venue holds the order (the crash window) and is
    // canceling it.
    CancelAccepted: to('canceling'),
    OrderCanceled: to('canceled'), // canceled locally before it was sent
    OrderCompleted: to('filled'),
    OrderLost: invalid('the order was never sent, so it cannot be lost'),
  },
  // Request sent, no answer yet.
  submitted: {
    OrderSubmitted: DOUBLE_SUBMIT,
    OrderAccepted: accepted, // accepted: in matching until a report says it rests (a plan: untriggered)
    OrderRejected: to('rejected'),
    OrderOutcomeUnknown: to('unknown'),
    OrderOpen: openOrPending, // reconciliation saw it before the reply came back
    OrderFilled: fillLive,
    OrderProgress: fillLive,
    CancelRequested: to('canceling'), // cancel by client_oid while the placement is in flight
    CancelRejected: stay,
    // The venue took a cancel of it (only after a refused cancel crossed a repeated one): the venue
    // is canceling it; the cancel decides what happens next.
    CancelAccepted: to('canceling'),
    OrderCanceled: to('canceled'),
    OrderCompleted: to('filled'),
    OrderLost: to('rejected'),
  },
  // The reply was lost: the exchange decides. Any exchange-reported state is adopted.
  unknown: {
    OrderSubmitted: DOUBLE_SUBMIT,
    OrderAccepted: accepted, // a late reply
    OrderRejected: to('rejected'),
    OrderOutcomeUnknown: stay,
    OrderOpen: openOrPending,
    OrderFilled: fillLive,
    OrderProgress: fillLive,
    CancelRequested: to('canceling'), // cancelling an order we are not sure exists is allowed and safe
    CancelRejected: stay,
    CancelAccepted: to('canceling'),
    OrderCanceled: to('canceled'),
    OrderCompleted: to('filled'),
    OrderLost: to('rejected'), // no trace after the grace period
  },
  // A plan order acknowledged by the exchange, waiting for its trigger price. Any report of its child
  // order (under the same client_oid) means it triggered: the child's life continues from here.
  untriggered: {
    OrderSubmitted: DOUBLE_SUBMIT,
    OrderAccepted: stay, // duplicate reply
    OrderRejected: stay, // contradicts the acceptance; the reducer flags it
    OrderOutcomeUnknown: stay,
    OrderOpen: openOrPending, // the child order was seen: triggered
    OrderFilled: fillLive, // a fill of the child
    OrderProgress: fillLive, // the plan row or the child's row reports progress (zero: triggered, pending)
    CancelRequested: to('canceling'),
    CancelRejected: stay,
    CancelAccepted: to('canceling'),
    OrderCanceled: to('canceled'), // canceled, or expired at the end of its window
    OrderCompleted: to('filled'),
    OrderLost: LOST_BUT_KNOWN,
  },
  // Acknowledged, in matching.
  pending: {
    OrderSubmitted: DOUBLE_SUBMIT,
    OrderAccepted: stay, // duplicate reply
    OrderRejected: stay, // contradicts what the exchange already reported; the reducer flags it
    OrderOutcomeUnknown: stay, // the reply was lost, but the order was already seen: nothing is unknown
    OrderOpen: openOrPending, // pending → open is forward; pending → pending a duplicate
    OrderFilled: fillLive,
    OrderProgress: fillLive,
    CancelRequested: to('canceling'),
    CancelRejected: stay,
    CancelAccepted: to('canceling'),
    OrderCanceled: to('canceled'),
    OrderCompleted: to('filled'),
    OrderLost: LOST_BUT_KNOWN,
  },
  // Resting in the book (possibly partially filled).
  open: {
    OrderSubmitted: DOUBLE_SUBMIT,
    OrderAccepted: stay,
    OrderRejected: stay, // contradiction, flagged by the reducer
    OrderOutcomeUnknown: stay,
    OrderOpen: stay, // OrderOpen(pending) after open is stale
    OrderFilled: fillLive,
    OrderProgress: fillLive,
    CancelRequested: to('canceling'),
    CancelRejected: stay,
    CancelAccepted: to('canceling'),
    OrderCanceled: to('canceled'),
    OrderCompleted: to('filled'),
    OrderLost: LOST_BUT_KNOWN,
  },
  // Our cancel is in flight. This row holds the races.
  canceling: {
    OrderSubmitted: DOUBLE_SUBMIT,
    // The cancel went out while the placement was still in flight; the late acceptance only brings
    // the order id. The cancel decides what happens next.
    OrderAccepted: stay,
    // The placement was refused after we asked to cancel it (cancel sent before the reply): there is
    // nothing to cancel. Once acknowledged, a refusal contradicts the exchange and is ignored.
    OrderRejected: ifAcknowledged(stay, to('rejected')),
    OrderOutcomeUnknown: stay, // the cancel's own answer will tell
    OrderOpen: stay, // stale: the report predates our cancel ("OrderOpen after canceling")
    // Cancel-then-fill race: fills keep arriving while the cancel travels. The quantity grows; a fill
    // that completes the order wins the race.
    OrderFilled: fillCanceling,
    OrderProgress: fillCanceling,
    CancelRequested: stay, // a repeated cancel is allowed
    // Surprising but right: the answer to our own cancel is "no". An acknowledged order is still
    // live (`open`, or `untriggered` for a plan whose child is not known; if the refusal meant
    // "already finished", reconciliation brings the terminal state). An order the exchange never acknowledged may or may not exist: back to `unknown`, so
    // reconciliation settles it by client_oid. The only downward moves in the table.
    CancelRejected: ifAcknowledged(
      (_e, f) => (f.untriggeredPlan === true ? 'untriggered' : 'open'),
      to('unknown'),
    ),
    // The venue took the cancel: it is in progress, not done. Fills may still come (fillCanceling);
    // history's canceled (with its final filled quantity) or filled row ends the order.
    CancelAccepted: stay,
    OrderCanceled: to('canceled'),
    OrderCompleted: to('filled'), // the fill won the race
    // A placement whose answer never came, then cancelled by client_oid, is still "submitted with a
    // cancel in flight": it may be declared lost like a submitted one.
    OrderLost: ifAcknowledged(LOST_BUT_KNOWN, to('rejected')),
  },
  // Terminal: everything is absorbed. The reducer still records late fills and flags contradictions.
  filled: {
    OrderSubmitted: DOUBLE_SUBMIT,
    OrderAccepted: stay, // late reply (e.g. a market order filled before the reply was read)
    OrderRejected: stay,
    OrderOutcomeUnknown: stay,
    OrderOpen: stay, // stale report
    OrderFilled: stay, // a fill whose quantity is already counted (reported progress came first)
    OrderProgress: stay,
    CancelRequested: stay, // our cancel crossed the final fill
    CancelRejected: stay, // ...and was refused because the order was already filled
    CancelAccepted: stay, // ...or was taken while the last fill was in flight
    OrderCanceled: stay,
    OrderCompleted: stay,
    OrderLost: stay, // the grace timer fired after reconciliation had settled it
  },
  canceled: {
    OrderSubmitted: DOUBLE_SUBMIT,
    OrderAccepted: stay,
    OrderRejected: stay,
    OrderOutcomeUnknown: stay,
    OrderOpen: stay,
    // A fill after the cancel: the matching engine filled part of the order before the cancel took
    // effect, and the fill was reported later. Recorded (quantity grows), status stays canceled.
    OrderFilled: stay,
    OrderProgress: stay,
    CancelRequested: stay,
    CancelRejected: stay,
    CancelAccepted: stay,
    OrderCanceled: stay,
    OrderCompleted: stay,
    OrderLost: stay,
  },
  rejected: {
    OrderSubmitted: DOUBLE_SUBMIT,
    // Exchange facts about an order we declared lost: it existed after all. The status stays (terminal
    // absorbs), the reducer records quantities and raises an anomaly for reconciliation to act on.
    OrderAccepted: stay,
    OrderRejected: stay,
    OrderOutcomeUnknown: stay,
    OrderOpen: stay,
    OrderFilled: stay,
    OrderProgress: stay,
    CancelRequested: stay,
    CancelRejected: stay,
    CancelAccepted: stay,
    OrderCanceled: stay,
    OrderCompleted: stay,
    OrderLost: stay,
  },
};

const NO_FACTS: TransitionFacts = { acknowledged: false, complete: false };

/**
 * The next status of an order in `status` when `event` happens. Returns `status` itself when the
 * event is absorbed or stale, and an InvalidTransition when the pair can only come from a bug.
 * `facts` defaults to "not acknowledged, not complete".
 */
export function transition(
  status: OrderStatus,
  event: OrderEvent,
  facts: TransitionFacts = NO_FACTS,
): OrderStatus | InvalidTransition {
  return TABLE[status][event.kind](event, facts, status);
}
