// How the executor reads what came back from a request: each batch entry's own outcome becomes one
// order event, and a failed request is classified by what it proves about the exchange having
// acted on it (core/errors.ts retry semantics). Pure.
import {
  BadResponseError,
  ExchangeError,
  OutcomeUnknownError,
  RateLimitedError,
  TransportError,
} from '../core/errors.ts';
import type { OrderEvent } from '../core/events.ts';
import type { ClientOid } from '../core/ids.ts';
import type { CancelOutcome, PlaceOutcome } from '../core/reports.ts';
import { mapToObjects } from '../core/object-lists.ts';

export type FailureDisposition =
  /** HTTP 429: the request was refused before anything happened. Safe to send again after back-off. */
  | { readonly kind: 'rateLimited'; readonly retryAfterMs: number; readonly message: string }
  /** Nothing reached the exchange (or it refused before acting and says to try again). Bounded retries. */
  | { readonly kind: 'notSent'; readonly message: string }
  /** The exchange answered with an error: the request was refused as a whole. */
  | { readonly kind: 'refused'; readonly code: string; readonly message: string }
  /** The request may have reached the exchange: a placement is NEVER resent; reconciliation settles it. */
  | { readonly kind: 'unknown'; readonly message: string };

export function classifyFailure(e: unknown): FailureDisposition {
  if (e instanceof RateLimitedError)
    return { kind: 'rateLimited', retryAfterMs: e.retryAfterMs, message: e.message };
  if (e instanceof TransportError) return { kind: 'notSent', message: e.message };
  if (e instanceof ExchangeError) {
    if (e.retry === 'retryable') return { kind: 'notSent', message: e.message };
    return { kind: 'refused', code: e.venueCode, message: e.venueMessage };
  }
  if (e instanceof OutcomeUnknownError || e instanceof BadResponseError)
    return { kind: 'unknown', message: e.message };
  // Anything unexpected (a bug in an adapter, a thrown non-Error): the request may have left.
  return { kind: 'unknown', message: e instanceof Error ? e.message : String(e) };
}

/**
 * One event per sent entry, from the per-entry outcomes of a placement (batch or single). An entry
 * the reply does not mention is `unknown`: the exchange may have taken it.
 */
export function placementEvents(
  sent: readonly ClientOid[],
  outcomes: readonly PlaceOutcome[],
  at: number,
): OrderEvent[] {
  const byOid = new Map<ClientOid, PlaceOutcome>();
  for (const o of outcomes) if (!byOid.has(o.clientOid)) byOid.set(o.clientOid, o);
  return mapToObjects(sent, (clientOid): OrderEvent => {
    const o = byOid.get(clientOid);
    if (o === undefined)
      return { kind: 'OrderOutcomeUnknown', clientOid, at, reason: 'the reply has no result for this entry' };
    if (o.outcome === 'accepted') return { kind: 'OrderAccepted', clientOid, at, orderId: o.orderId };
    return { kind: 'OrderRejected', clientOid, at, code: o.code, reason: o.message };
  });
}

/**
 * The event for a cancel's answer. `result: true` means the exchange TOOK the cancel, not that the
 * order is canceled: it may still fill before the cancel takes effect (weex-facts.md §9), so the
 * order stays `canceling` until order history or fills show how it ended (CancelAccepted).
 */
export function cancelEvent(clientOid: ClientOid, outcome: CancelOutcome, at: number): OrderEvent {
  if (outcome.result) {
    return {
      kind: 'CancelAccepted',
      clientOid,
      at,
      ...(outcome.orderId !== undefined ? { orderId: outcome.orderId } : {}),
    };
  }
  return {
    kind: 'CancelRejected',
    clientOid,
    at,
    code: outcome.errCode ?? 'CANCEL_REFUSED',
    reason: outcome.errMsg ?? 'the exchange refused the cancel',
  };
}
