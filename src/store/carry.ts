// Carried positions: what a prune (./prune-plan.ts) writes in place of the fills it removes, so that
// every figure folded from the stored fills (the engine's positions at start, `capibot status`, the
// PnL metrics, the drawdown breaker's equity) stays what it was.
//
// A position leg (strategy, symbol, long|short) folded from fills keeps a quantity, the entry cost of
// that quantity, realised PnL and fees (core/positions.ts). One opening fill of size = quantity,
// value = cost, fee = fees and realizedPnl = realised PnL, folded first, leaves the leg exactly so:
// opening fills add their size, value, fee and realised PnL and nothing else. Later fills see the same
// quantity and cost, so they fold as before. Only the leg's volume and fill count differ (one fill
// whose value is the cost still held, instead of the history's).
//
// The fold attributes a fill to a strategy through its client_oid's order (strategy and side): a leg
// of a strategy therefore gets a carry order too, `filled`, tagged CARRY_TAG, never at the exchange.
// Its client_oid (`_carry-…`) cannot be one of capibot's (a prefix is [A-Za-z0-9]{1,8}, no `_`), so
// reconciliation never adopts, matches or cancels it. A leg without a strategy (fills of no known
// order) gets a carry fill without client_oid, classified by its `direction`.
import { StoreError } from '../core/errors.ts';
import { fnv1a32 } from '../core/hash.ts';
import { clientOid, orderId, tradeId, type ClientOid } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import { averageEntry, type Position } from '../core/positions.ts';
import type { StoredFill } from './port.ts';
import { storedFill } from './stored-fill.ts';

/** The `tag` of a carry order. */
export const CARRY_TAG = 'capibot:carry';

export function isCarryOrder(o: Pick<Order, 'tag'>): boolean {
  return o.tag === CARRY_TAG;
}

const CARRY_ID = 'carry|';

/** A carry fill (real trade ids are digits). */
export function isCarryFill(f: Pick<StoredFill, 'tradeId'>): boolean {
  return f.tradeId.startsWith(CARRY_ID);
}

/** 32-bit FNV-1a (as client_oids use it), base 36. */
function hash36(text: string): string {
  return fnv1a32(text).toString(36).padStart(7, '0');
}

/** The carry rows of one leg; `at` is the time of the last fill it replaces. */
export interface CarryRows {
  readonly order?: Order;
  readonly fill: StoredFill;
}

/** True when carrying `p` changes nothing the fold keeps (no quantity, cost, PnL or fees). */
export function isEmptyLeg(p: Position): boolean {
  return p.qty.eq(0) && p.cost.eq(0) && p.realizedPnl.eq(0) && p.fees.eq(0);
}

/**
 * The rows that stand for leg `p` (folded from the removed fills of key `key`), dated `at`. Ids are
 * derived from the key and `at`, so a later prune that folds this carry into a new one writes rows
 * with other ids: the old ones are removed in the same transaction.
 */
export function carryRows(key: string, p: Position, at: number, before: number): CarryRows {
  const long = p.leg === 'long';
  const id = `${CARRY_ID}${key}|${at}`;
  const fill: StoredFill = {
    tradeId: tradeId(id),
    orderId: orderId(id),
    symbol: p.symbol,
    positionSide: long ? 'LONG' : 'SHORT',
    orderSide: long ? 'BUY' : 'SELL',
    direction: long ? 'OPEN_LONG' : 'OPEN_SHORT',
    size: p.qty,
    value: p.cost,
    fee: p.fees,
    realizedPnl: p.realizedPnl,
    createdTime: at,
  };
  if (p.strategy === undefined) return { fill };
  const oid = carryClientOid(key, at, long);
  const entry = averageEntry(p);
  const order: Order = {
    clientOid: oid,
    strategy: p.strategy,
    symbol: p.symbol,
    side: long ? 'open_long' : 'open_short',
    orderType: 'normal',
    size: p.qty,
    status: 'filled',
    filledQty: p.qty,
    ...(entry !== undefined ? { avgPrice: entry } : {}),
    fillsQty: p.qty,
    fillsValue: p.cost,
    tag: CARRY_TAG,
    reason: `carried forward: position, realised PnL and fees of the fills pruned before ${new Date(before).toISOString()}`,
    createdAt: at,
    updatedAt: at,
  };
  return { order, fill: storedFill(fill, oid) };
}

/** `_carry-<l|s>-<hash of the key>-<at, base 36>`: at most 40 characters of [A-Za-z0-9_-]. */
function carryClientOid(key: string, at: number, long: boolean): ClientOid {
  if (!Number.isSafeInteger(at) || at < 0) throw new StoreError(`carry: bad time ${at} for ${key}`);
  return clientOid(`_carry-${long ? 'l' : 's'}-${hash36(key)}-${at.toString(36)}`);
}
