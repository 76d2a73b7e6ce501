// The market as the simulator knows it: each symbol's latest ticker (from the latest snapshot that
// held it), and what the matching core and the engine derive from it, built on first use only.
//
// The tickers endpoint answers with every listed contract (hundreds on a large venue) while the
// strategies trade a few. Installing a snapshot therefore costs a few field writes per ticker and
// nothing more: it reads each row's symbol only (TickerRows: a recording line's ticker objects are
// not even made), and a ticker's object, book (exact best bid, ask and last), per-snapshot liquidity
// and TickerView are made when something asks for that symbol — an order to match, a request, a
// strategy watching it — so a symbol nobody trades is never decoded.
//
// Semantics are those of the eager version this replaces (a book, a liquidity reset and a view per
// ticker of every snapshot): a symbol's book is that of the latest snapshot holding it, with that
// snapshot's time; its liquidity is reset by every snapshot holding it (lazily, at the first read
// after one: nothing else moves it in between); a snapshot holding a symbol twice takes the last.
import type { Footprint } from '../../core/footprint.ts';
import type { Dec } from '../../core/decimal.ts';
import type { WireTicker } from '../../core/market.ts';
import type { TickerRows } from '../../core/ticker-rows.ts';
import { TickerView } from '../../core/ticker-view.ts';

/** The market as one snapshot shows it for one symbol. Sides ≤ 0 are treated as absent. */
export interface Book {
  readonly bid?: Dec | undefined;
  readonly ask?: Dec | undefined;
  readonly last?: Dec | undefined;
  readonly time: number;
}

/** Quantity (base coin) the market still offers to buyers and to sellers in this snapshot. */
export interface Liquidities {
  buy: Dec | undefined;
  sell: Dec | undefined;
}

/** A price the view decodes (its own cache: one parse per ticker), when positive; else null. */
function positiveOf(view: TickerView, side: 'bestBid' | 'bestAsk' | 'last' | 'markPrice'): Dec | null {
  try {
    const d = view[side];
    return d !== undefined && d.gt(0) ? d : null;
  } catch {
    // An absent or unreadable side (the readers check decimals; a hand-made ticker may not).
    return null;
  }
}

/**
 * The book of one snapshot: each side decoded exactly on first read only, by the ticker's view, so
 * the book, the engine's mark and the strategies share one parse. Sides ≤ 0 or unreadable are absent.
 */
class SnapshotBook implements Book {
  readonly time: number;
  readonly #view: TickerView;
  #bid: Dec | null | undefined;
  #ask: Dec | null | undefined;
  #last: Dec | null | undefined;

  constructor(view: TickerView, time: number) {
    this.#view = view;
    this.time = time;
  }

  get bid(): Dec | undefined {
    return (this.#bid ??= positiveOf(this.#view, 'bestBid')) ?? undefined;
  }

  get ask(): Dec | undefined {
    return (this.#ask ??= positiveOf(this.#view, 'bestAsk')) ?? undefined;
  }

  get last(): Dec | undefined {
    return (this.#last ??= positiveOf(this.#view, 'last')) ?? undefined;
  }
}

/** V8 keeps a slice of 13 characters or more as a view of its whole line; below, it copies. */
const SLICE_MIN_LENGTH = 13;

/** `text` as a string of its own, so that keeping it does not keep a whole recording line alive. */
function ownText(text: string): string {
  return text.length < SLICE_MIN_LENGTH ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/**
 * The snapshot a run of snapshots with one layout (the same symbols in the same order) ended at: its
 * rows, number and time. Every slot of the layout shares it, so installing another snapshot of the
 * same layout moves all of them with three writes. A slot whose symbol a later layout lacks keeps the
 * epoch it had, which is never written again (a new layout gets a new epoch).
 */
class Epoch {
  rows: TickerRows;
  snapshot: number;
  time: number;

  constructor(rows: TickerRows, snapshot: number, time: number) {
    this.rows = rows;
    this.snapshot = snapshot;
    this.time = time;
  }
}

/** One symbol: its latest ticker, where it stood in its snapshot, and what was derived from it. */
class SymbolSlot implements Liquidities {
  readonly symbol: string;
  /** The `last` text of the first ticker seen of the symbol. */
  readonly firstLast: string;
  /** The latest snapshot holding the symbol (see Epoch), and the symbol's row there. */
  epoch: Epoch;
  index: number;
  buy: Dec | undefined = undefined;
  sell: Dec | undefined = undefined;
  /** The snapshot whose liquidity `buy` and `sell` hold (0: none yet). */
  liquidityOf = 0;
  #book: SnapshotBook | undefined;
  #bookOf = 0;
  #view: TickerView | undefined;

  constructor(symbol: string, epoch: Epoch, index: number) {
    this.symbol = symbol;
    this.firstLast = ownText(epoch.rows.lastAt(index));
    this.epoch = epoch;
    this.index = index;
  }

  get rows(): TickerRows {
    return this.epoch.rows;
  }

  /** The number of the latest snapshot holding the symbol. */
  get snapshot(): number {
    return this.epoch.snapshot;
  }

  get time(): number {
    return this.epoch.time;
  }

  /** The latest ticker of the symbol (made from its row when first asked for). */
  get wire(): WireTicker {
    return this.rows.tickerAt(this.index);
  }

  /** Its `last` text. */
  get last(): string {
    return this.rows.lastAt(this.index);
  }

  /** TickerRows.copyLast of its `last` text. */
  copyLast(into: Uint8Array, at: number): number {
    return this.rows.copyLast(this.index, into, at);
  }

  book(): Book {
    if (this.#book === undefined || this.#bookOf !== this.snapshot) {
      this.#book = new SnapshotBook(this.view(), this.time);
      this.#bookOf = this.snapshot;
    }
    return this.#book;
  }

  /** The Ticker of the latest ticker (one per wire ticker: shared by every reader). */
  view(): TickerView {
    const v = this.#view;
    const wire = this.wire;
    if (v !== undefined && v.wire === wire) return v;
    return (this.#view = new TickerView(wire));
  }
}

const bySnapshotIndex = (a: SymbolSlot, b: SymbolSlot): number => a.index - b.index;

/** The latest ticker of one symbol (see MarketState.latest). */
export interface LatestTicker {
  readonly symbol: string;
  /** The `last` text of the first ticker seen of the symbol, and of the latest. */
  readonly firstLast: string;
  readonly last: string;
  /** TickerRows.copyLast of the latest `last` text. */
  copyLast(into: Uint8Array, at: number): number;
  /** The latest ticker (made when read, for a recording line). */
  readonly wire: WireTicker;
}

export class MarketState {
  /** Every symbol seen, by name and in the order first seen. */
  readonly #slots = new Map<string, SymbolSlot>();
  readonly #seen: SymbolSlot[] = [];
  /** The latest snapshot's slots, by position: the next snapshot usually lists the same symbols alike. */
  readonly #order: SymbolSlot[] = [];
  /** The latest snapshot (its rows, number, time), shared by its slots. */
  #epoch: Epoch | undefined;
  #snapshot = 0;
  /** The latest snapshot holds some symbol more than once (each occurrence then counts, as before). */
  #repeats = false;
  #views: readonly TickerView[] | undefined;
  readonly #cap: Dec | undefined;
  /**
   * `viewsOf`'s symbols resolved to slots, for the last set it was given: a backtest asks for the
   * same set (its strategies' symbols) on every poll. Resolved again when another set comes, when
   * the set's size changes, or when a symbol is seen for the first time.
   */
  #watched:
    | {
        readonly of: ReadonlySet<string>;
        readonly size: number;
        readonly seen: number;
        readonly slots: SymbolSlot[];
      }
    | undefined;
  /** `viewsOf`'s scratch list of the slots present in the latest snapshot (emptied after each call). */
  readonly #present: SymbolSlot[] = [];
  /** The same for `inSnapshotOrder` (a caller may ask it while iterating `viewsOf`'s result). */
  readonly #ordered: SymbolSlot[] = [];

  /** `liquidityPerSnapshot`: what each snapshot offers per symbol and side (undefined: unlimited). */
  constructor(liquidityPerSnapshot: Dec | undefined) {
    this.#cap = liquidityPerSnapshot;
  }

  /**
   * Installs a snapshot taken at `time`, nothing decoded: three writes when it lists the same symbols
   * in the same order as the latest one (its rows share that one's layout: a recording's lines
   * usually do), else a few field writes per ticker.
   */
  install(rows: TickerRows, time: number): void {
    const n = ++this.#snapshot;
    const layout = rows.layout;
    const epoch = this.#epoch;
    this.#views = undefined;
    if (layout !== undefined && epoch !== undefined && layout === epoch.rows.layout) {
      // The same slots at the same rows (and the same repeats, if any): they all share the epoch.
      epoch.rows = rows;
      epoch.snapshot = n;
      epoch.time = time;
      return;
    }
    const next = new Epoch(rows, n, time);
    const order = this.#order;
    const size = rows.size;
    let repeats = false;
    for (let i = 0; i < size; i++) {
      const symbol = rows.symbolAt(i);
      let s = order[i];
      if (s === undefined || s.symbol !== symbol) {
        s = this.#slots.get(symbol);
        if (s === undefined) {
          s = new SymbolSlot(symbol, next, i);
          this.#slots.set(symbol, s);
          this.#seen.push(s);
        } else if (s.epoch === next) {
          repeats = true;
        }
        order[i] = s;
      } else if (s.epoch === next) {
        repeats = true;
      }
      s.epoch = next;
      s.index = i;
    }
    if (order.length > size) order.length = size;
    this.#repeats = repeats;
    this.#epoch = next;
  }

  /** The latest snapshot's rows. */
  get #rows(): TickerRows | undefined {
    return this.#epoch?.rows;
  }

  /** The latest snapshot's tickers, exactly as given (all made, for a recording line). */
  tickers(): readonly WireTicker[] {
    return this.#rows?.all() ?? [];
  }

  /** One slot per symbol ever seen, and the latest snapshot's (core/footprint.ts). */
  footprint(): Footprint {
    return { symbols: this.#slots.size, seen: this.#seen.length, snapshot: this.#order.length };
  }

  /** True once a snapshot has shown the symbol. */
  has(symbol: string): boolean {
    return this.#slots.has(symbol);
  }

  /** Every symbol seen, in the order first seen. */
  symbols(): IterableIterator<string> {
    return this.#slots.keys();
  }

  /**
   * Each symbol seen, in the order first seen (a new symbol comes last): its first and its latest
   * ticker. A live view: it follows the snapshots installed after the call.
   */
  latest(): readonly LatestTicker[] {
    return this.#seen;
  }

  /** The book of the latest snapshot that held the symbol (the same object until the next one does). */
  book(symbol: string): Book | undefined {
    return this.#slots.get(symbol)?.book();
  }

  /** The TickerView of the symbol's latest ticker (what `book` and `mark` decode from). */
  latestView(symbol: string): TickerView | undefined {
    return this.#slots.get(symbol)?.view();
  }

  /** The mark price of the symbol's latest ticker; undefined when it has none (or it is ≤ 0). */
  mark(symbol: string): Dec | undefined {
    const s = this.#slots.get(symbol);
    return s === undefined ? undefined : (positiveOf(s.view(), 'markPrice') ?? undefined);
  }

  /** What the symbol's latest snapshot still offers; undefined for a symbol never seen. */
  liquidity(symbol: string): Liquidities | undefined {
    const s = this.#slots.get(symbol);
    if (s === undefined) return undefined;
    if (s.liquidityOf !== s.snapshot) {
      s.buy = s.sell = this.#cap;
      s.liquidityOf = s.snapshot;
    }
    return s;
  }

  /** The latest snapshot's tickers as TickerViews, in its order (the same objects until the next one). */
  views(): readonly TickerView[] {
    if (this.#views !== undefined) return this.#views;
    const out: TickerView[] = [];
    const size = this.#rows?.size ?? 0;
    for (let i = 0; i < size; i++) out.push(this.#viewAt(i));
    return (this.#views = out);
  }

  /**
   * The views of the latest snapshot's tickers of `symbols` only, in the snapshot's order: what
   * `views()` filtered by symbol gives, without looking at (or decoding) any other ticker. `symbols`
   * is read as a fixed set (see `#watched`): to ask for other symbols, pass another set, not the same
   * one changed in place.
   */
  viewsOf(symbols: ReadonlySet<string>): readonly TickerView[] {
    if (this.#repeats) return this.views().filter((v) => symbols.has(v.symbol));
    const present = this.#inSnapshot(this.#slotsOf(symbols), this.#present);
    const out: TickerView[] = [];
    for (let i = 0; i < present.length; i++) out.push((present[i] as SymbolSlot).view());
    present.length = 0;
    return out;
  }

  /** The slots of the symbols of `symbols` seen so far (see `#watched`). */
  #slotsOf(symbols: ReadonlySet<string>): readonly SymbolSlot[] {
    const w = this.#watched;
    if (w !== undefined && w.of === symbols && w.size === symbols.size && w.seen === this.#seen.length)
      return w.slots;
    const slots = this.#slotsFor(symbols);
    this.#watched = { of: symbols, size: symbols.size, seen: this.#seen.length, slots };
    return slots;
  }

  /** The slots of the symbols among `symbols` seen so far, in `symbols`' order. */
  #slotsFor(symbols: Iterable<string>): SymbolSlot[] {
    const slots: SymbolSlot[] = [];
    for (const symbol of symbols) {
      const s = this.#slots.get(symbol);
      if (s !== undefined) slots.push(s);
    }
    return slots;
  }

  /**
   * Each ticker of the latest snapshot whose symbol is in `symbols`, as that symbol, in the
   * snapshot's order (a symbol listed twice comes twice).
   */
  inSnapshotOrder(symbols: Iterable<string>): string[] {
    const rows = this.#rows;
    if (this.#repeats && rows !== undefined) {
      const wanted = new Set(symbols);
      const out: string[] = [];
      for (let i = 0; i < rows.size; i++) if (wanted.has(rows.symbolAt(i))) out.push(rows.symbolAt(i));
      return out;
    }
    // #inSnapshot over the symbols' slots, without a list of them: this runs at every snapshot while
    // a plan is armed or an order rests.
    const slots = this.#ordered;
    let ordered = true;
    for (const symbol of symbols) {
      const s = this.#slots.get(symbol);
      if (s !== undefined && !this.#pushPresent(s, slots)) ordered = false;
    }
    if (!ordered) slots.sort(bySnapshotIndex);
    const out: string[] = [];
    for (let i = 0; i < slots.length; i++) out.push((slots[i] as SymbolSlot).symbol);
    slots.length = 0;
    return out;
  }

  /**
   * Appends to `out` the slots among `slots` that the latest snapshot holds, in its order (no symbol
   * repeats there; sorted only when they come out of order), and returns `out`.
   */
  #inSnapshot(slots: readonly SymbolSlot[], out: SymbolSlot[]): SymbolSlot[] {
    let ordered = true;
    for (let i = 0; i < slots.length; i++)
      if (!this.#pushPresent(slots[i] as SymbolSlot, out)) ordered = false;
    if (!ordered) out.sort(bySnapshotIndex);
    return out;
  }

  /** Appends `s` to `out` when the latest snapshot holds it; false when it comes before `out`'s last. */
  #pushPresent(s: SymbolSlot, out: SymbolSlot[]): boolean {
    if (s.snapshot !== this.#snapshot) return true;
    const before = out[out.length - 1];
    out.push(s);
    return before === undefined || before.index <= s.index;
  }

  #viewAt(i: number): TickerView {
    const rows = this.#rows as TickerRows;
    const s = this.#slots.get(rows.symbolAt(i));
    // A symbol listed twice: the earlier occurrence is not the slot's latest ticker.
    return s !== undefined && s.rows === rows && s.index === i ? s.view() : new TickerView(rows.tickerAt(i));
  }
}
