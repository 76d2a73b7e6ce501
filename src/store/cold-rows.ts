// The long tail of a backtest's memory store: terminal orders last updated long ago and their fills,
// written out of the heap to a spill file (./spill-file.ts) as compact JSON text (the store's row
// codec, values only). In memory stay only their ids, in compact sets (./compact-id-set.ts: a few
// bytes per id), so a backtest's memory does not grow with its orders (issue #24). Reading one back
// decodes it through the same codec the SQLite store uses, so it comes back equal to what went in.
//
// The engine never reads a retired row during a run (retirement waits until no query reaches that
// far back): reads scan the file, which is fine for the end of a run (the report) and the rare
// late question, and would be slow for anything frequent.
import type { Footprint } from '../core/footprint.ts';
import type { ClientOid, OrderId, TradeId } from '../core/ids.ts';
import { byCreation, type Order } from '../core/orders.ts';
import { CompactIdSet } from './compact-id-set.ts';
import type { StoredFill } from './port.ts';
import {
  FILL_COLUMNS,
  fillFromValues,
  fillValues,
  ORDER_DATA_COLUMNS,
  orderFromRow,
  orderValues,
  rowFromValues,
  type OrderRow,
} from './rows.ts';
import { SpillFile } from './spill-file.ts';

/** The order columns as `orderValues` lists them (the SQLite store's INSERT order). */
const ORDER_KEYS = [...ORDER_DATA_COLUMNS, 'client_oid'] as const satisfies readonly (keyof OrderRow)[];

function decodeOrder(line: string): Order {
  return orderFromRow(rowFromValues<OrderRow>(JSON.parse(line) as unknown[], ORDER_KEYS));
}

/** A retired fill and its insertion number (the store's rowid: the tie-break of equal times). */
export interface ColdFill {
  readonly fill: StoredFill;
  readonly rowid: number;
}

export class ColdRows {
  readonly #orderLines = new SpillFile('orders.ndjson');
  readonly #fillLines = new SpillFile('fills.ndjson');
  readonly #oids = new CompactIdSet();
  /** Exchange order ids of retired orders (may also hold ids of orders taken back: a read checks). */
  readonly #orderIds = new CompactIdSet();
  readonly #tradeIds = new CompactIdSet();
  /** Lines of orders taken back out (updated again): a later retirement appends a new line. */
  readonly #stale = new Set<number>();
  /** Every retired order was last updated before this (−∞ while none is). */
  #watermark = Number.NEGATIVE_INFINITY;

  get watermark(): number {
    return this.#watermark;
  }

  get orderCount(): number {
    return this.#oids.size;
  }

  get fillCount(): number {
    return this.#fillLines.lines;
  }

  /** Raises the watermark (orders retired from now on were last updated before `before`). */
  retiredBefore(before: number): void {
    this.#watermark = Math.max(this.#watermark, before);
  }

  hasOrder(oid: ClientOid): boolean {
    return this.#oids.has(oid);
  }

  /** The lines holding `text` (quoted), decoded, that are not stale. */
  #ordersQuoting(text: string, each: (o: Order, line: number) => void): void {
    const quoted = JSON.stringify(text);
    this.#orderLines.forEach((line, i) => {
      if (!this.#stale.has(i) && line.includes(quoted)) each(decodeOrder(line), i);
    });
  }

  #find(oid: ClientOid): { readonly order: Order; readonly line: number } | undefined {
    if (!this.#oids.has(oid)) return undefined;
    let found: { order: Order; line: number } | undefined;
    this.#ordersQuoting(oid, (order, line) => {
      if (order.clientOid === oid) found = { order, line };
    });
    return found;
  }

  order(oid: ClientOid): Order | undefined {
    return this.#find(oid)?.order;
  }

  /** The earliest created retired order with this exchange order id (the store's rule for duplicates). */
  orderByOrderId(id: OrderId): Order | undefined {
    if (!this.#orderIds.has(id)) return undefined;
    let found: Order | undefined;
    this.#ordersQuoting(id, (o) => {
      if (o.orderId === id && (found === undefined || byCreation(o, found) < 0)) found = o;
    });
    return found;
  }

  addOrder(o: Order): void {
    this.#orderLines.append(JSON.stringify(orderValues(o)));
    this.#oids.add(o.clientOid);
    if (o.orderId !== undefined) this.#orderIds.add(o.orderId);
  }

  /** Takes an order back out (it is being updated again); undefined when it is not here. */
  takeOrder(oid: ClientOid): Order | undefined {
    const found = this.#find(oid);
    if (found === undefined) return undefined;
    this.#stale.add(found.line);
    this.#oids.delete(oid);
    return found.order;
  }

  /** Calls `each` with every retired order, decoded (in the order they were retired). */
  forEachOrder(each: (o: Order) => void): void {
    this.#orderLines.forEach((line, i) => {
      if (!this.#stale.has(i)) each(decodeOrder(line));
    });
  }

  /**
   * Calls `each` with every retired order's values as `orderValues` lists them, parsed but not
   * decoded (in the order they were retired): for readers that copy rows on (the report's spool).
   */
  forEachOrderValues(each: (values: readonly unknown[]) => void): void {
    this.#orderLines.forEach((line, i) => {
      if (!this.#stale.has(i)) each(JSON.parse(line) as unknown[]);
    });
  }

  /** Every retired order, decoded (in the order they were retired). */
  orders(): Order[] {
    const out: Order[] = [];
    this.forEachOrder((o) => out.push(o));
    return out;
  }

  hasFill(tradeId: TradeId): boolean {
    return this.#tradeIds.has(tradeId);
  }

  addFill(f: StoredFill, rowid: number): void {
    this.#tradeIds.add(f.tradeId);
    this.#fillLines.append(JSON.stringify([...fillValues(f), rowid]));
  }

  /**
   * Calls `each` with every retired fill's values in FILL_COLUMNS order (its rowid follows them),
   * parsed but not decoded, the JSON text of exactly those values (its line without the rowid: the
   * same text, since a line is `JSON.stringify` of the values and then the rowid, a number), and
   * its rowid, in the order they were retired.
   */
  forEachFillValues(each: (values: readonly unknown[], text: string, rowid: number) => void): void {
    this.#fillLines.forEach((line) => {
      const values = JSON.parse(line) as unknown[];
      each(values, `${line.slice(0, line.lastIndexOf(','))}]`, Number(values[FILL_COLUMNS.length]));
    });
  }

  /** Every retired fill, decoded, with its rowid (in the order they were retired). */
  fills(): ColdFill[] {
    const out: ColdFill[] = [];
    this.forEachFillValues((values, _text, rowid) => out.push({ fill: fillFromValues(values), rowid }));
    return out;
  }

  /** Empties this (the rows went back to the live indexes). */
  clear(): void {
    this.#orderLines.clear();
    this.#fillLines.clear();
    this.#oids.clear();
    this.#orderIds.clear();
    this.#tradeIds.clear();
    this.#stale.clear();
    this.#watermark = Number.NEGATIVE_INFINITY;
  }

  /** Empties this and removes its files. */
  close(): void {
    this.clear();
    this.#orderLines.close();
    this.#fillLines.close();
  }

  /**
   * The rows retired (lines on disk), the id sets' 4-byte slots and ids kept as strings (none of
   * capibot's), and the stale lines remembered.
   */
  footprint(): Footprint {
    return {
      retiredOrders: this.#oids.size,
      retiredFills: this.#fillLines.lines,
      idSlots:
        this.#oids.footprint().slots + this.#orderIds.footprint().slots + this.#tradeIds.footprint().slots,
      idStrings:
        this.#oids.footprint().strings +
        this.#orderIds.footprint().strings +
        this.#tradeIds.footprint().strings,
      staleLines: this.#stale.size,
    };
  }
}
