// The long tail of a backtest's memory store: terminal orders last updated long ago and their fills,
// kept as compact JSON text (the store's row codec, values only) instead of objects: a retired order
// and its fill cost a few hundred bytes of text instead of about 1.2 kB of objects (issue #24: a
// backtest's memory must not grow with its orders). Reading one back decodes it through the same
// codec the SQLite store uses, so it comes back equal to what went in.
import type { ClientOid, TradeId } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import type { StoredFill } from './port.ts';
import {
  fillFromRow,
  fillToRow,
  ORDER_DATA_COLUMNS,
  orderFromRow,
  orderValues,
  type FillRow,
  type OrderRow,
} from './rows.ts';

/** The order columns as `orderValues` lists them (the SQLite store's INSERT order). */
const ORDER_KEYS = [...ORDER_DATA_COLUMNS, 'client_oid'] as const satisfies readonly (keyof OrderRow)[];

const FILL_KEYS = [
  'trade_id',
  'order_id',
  'client_oid',
  'symbol',
  'position_side',
  'order_side',
  'direction',
  'size',
  'value',
  'fee',
  'realized_pnl',
  'created_at',
] as const satisfies readonly (keyof FillRow)[];

function encode<R extends object>(row: R, keys: readonly (keyof R)[]): string {
  return JSON.stringify(keys.map((k) => row[k]));
}

function decode<R extends object>(text: string, keys: readonly (keyof R)[]): R {
  const values = JSON.parse(text) as unknown[];
  const row: Partial<Record<keyof R, unknown>> = {};
  keys.forEach((k, i) => {
    row[k] = values[i];
  });
  return row as R;
}

/** A retired fill and its insertion number (the store's rowid: the tie-break of equal times). */
export interface ColdFill {
  readonly fill: StoredFill;
  readonly rowid: number;
}

export class ColdRows {
  readonly #orders = new Map<ClientOid, string>();
  readonly #tradeIds = new Set<TradeId>();
  readonly #fillTexts: string[] = [];
  readonly #fillRowids: number[] = [];
  /** Every retired order was last updated before this (−∞ while none is). */
  #watermark = Number.NEGATIVE_INFINITY;

  get watermark(): number {
    return this.#watermark;
  }

  get orderCount(): number {
    return this.#orders.size;
  }

  get fillCount(): number {
    return this.#fillTexts.length;
  }

  /** Raises the watermark (orders retired from now on were last updated before `before`). */
  retiredBefore(before: number): void {
    this.#watermark = Math.max(this.#watermark, before);
  }

  hasOrder(oid: ClientOid): boolean {
    return this.#orders.has(oid);
  }

  order(oid: ClientOid): Order | undefined {
    const text = this.#orders.get(oid);
    return text === undefined ? undefined : orderFromRow(decode<OrderRow>(text, ORDER_KEYS));
  }

  addOrder(o: Order): void {
    this.#orders.set(o.clientOid, JSON.stringify(orderValues(o)));
  }

  /** Takes an order back out (it is being updated again); undefined when it is not here. */
  takeOrder(oid: ClientOid): Order | undefined {
    const o = this.order(oid);
    this.#orders.delete(oid);
    return o;
  }

  /** Every retired order, decoded (in no particular order). */
  orders(): Order[] {
    return [...this.#orders.values()].map((t) => orderFromRow(decode<OrderRow>(t, ORDER_KEYS)));
  }

  hasFill(tradeId: TradeId): boolean {
    return this.#tradeIds.has(tradeId);
  }

  addFill(f: StoredFill, rowid: number): void {
    this.#tradeIds.add(f.tradeId);
    this.#fillTexts.push(encode(fillToRow(f), FILL_KEYS));
    this.#fillRowids.push(rowid);
  }

  /** Every retired fill, decoded, with its rowid (in the order they were retired). */
  fills(): ColdFill[] {
    return this.#fillTexts.map((t, i) => ({
      fill: fillFromRow(decode<FillRow>(t, FILL_KEYS)),
      rowid: this.#fillRowids[i] ?? 0,
    }));
  }

  /** Empties this (the rows went back to the live indexes). */
  clear(): void {
    this.#orders.clear();
    this.#tradeIds.clear();
    this.#fillTexts.length = 0;
    this.#fillRowids.length = 0;
    this.#watermark = Number.NEGATIVE_INFINITY;
  }
}
