// The in-process port's placements and cancels as the venue's requests, without writing the body as
// text and parsing it back: what `parsePlaceOrderBody` / `parseBatchOrdersBody` (./params.ts),
// `parsePlanOrderBody` and `parseCancelBody` (./plan-params.ts, ./params.ts) make of the body WeexClient
// would send for the same entry or request (`placeEntryToWire`, `planEntryToWire`, `cancelToWire`), no
// margin mode given. test/exchange/sim/requests.property.test.ts checks both paths give the same
// requests and refusals. Whatever a typed value could hold that the venue's body checks would refuse
// (a client_oid outside the pattern, an empty id) is left to the wire body and the venue's own refusal.
import { CLIENT_OID_PATTERN } from '../../core/ids.ts';
import type { CancelPlanRequest, CancelRequest, PlaceEntry, PlanEntry } from '../port.ts';
import type { SimOrderRequest, SimPlanRequest } from './model.ts';

/**
 * The entry's request; undefined when its body would not pass the venue's body checks as it is (a
 * client_oid outside the pattern: the only field of a typed entry that can fail them). The port then
 * sends the wire body, for the venue's own refusal.
 */
export function requestOfEntry(e: PlaceEntry): SimOrderRequest | undefined {
  if (!CLIENT_OID_PATTERN.test(e.clientOid)) return undefined;
  return {
    clientOid: e.clientOid,
    side: e.side,
    orderType: e.orderType,
    size: e.size,
    ...(e.price !== undefined ? { price: e.price } : {}),
    ...(e.presetTakeProfitPrice !== undefined ? { presetTakeProfitPrice: e.presetTakeProfitPrice } : {}),
    ...(e.presetStopLossPrice !== undefined ? { presetStopLossPrice: e.presetStopLossPrice } : {}),
    marginMode: 'SHARED',
  };
}

/** Every entry's request, or undefined when one needs the wire body (see `requestOfEntry`). */
export function requestsOfEntries(entries: readonly PlaceEntry[]): SimOrderRequest[] | undefined {
  const out: SimOrderRequest[] = [];
  for (const e of entries) {
    const r = requestOfEntry(e);
    if (r === undefined) return undefined;
    out.push(r);
  }
  return out;
}

/** The plan entry's request; undefined when its body would not pass the body checks as it is. */
export function planRequestOfEntry(e: PlanEntry): SimPlanRequest | undefined {
  if (!CLIENT_OID_PATTERN.test(e.clientOid)) return undefined;
  return {
    clientOid: e.clientOid,
    side: e.side,
    size: e.size,
    triggerPrice: e.triggerPrice,
    ...(e.executePrice !== undefined ? { executePrice: e.executePrice } : {}),
    marginMode: 'SHARED',
  };
}

/** True when `cancelToWire(req)` holds an empty value (left to the wire: the body check names it). */
export function cancelNeedsWire(req: CancelRequest | CancelPlanRequest): boolean {
  return req.symbol === '' || req.orderId === '' || req.clientOid === '';
}
