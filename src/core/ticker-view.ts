// The Ticker of a wire ticker, decoded once: numbers for signals at construction (a `Number()` each),
// exact decimals on first read (decimal parses are the expensive part, and most polls of a backtest
// are read by nobody exactly). One view is built per ticker per poll and shared by the simulator's
// book, the engine and every strategy. Immutable to its readers: the cache is private.
import { dec, type Dec } from './decimal.ts';
import { symbolId, type SymbolId } from './ids.ts';
import type { Ticker, WireTicker } from './market.ts';

const optionalNumber = (s: string | undefined): number | undefined =>
  s === undefined ? undefined : Number(s);

export class TickerView implements Ticker {
  readonly symbol: SymbolId;
  readonly timestamp: number;
  readonly price: number;
  readonly bid: number;
  readonly ask: number;
  readonly mark: number | undefined;
  readonly index: number | undefined;
  readonly wire: WireTicker;
  #last: Dec | undefined;
  #bestBid: Dec | undefined;
  #bestAsk: Dec | undefined;
  #markPrice: Dec | undefined;
  #indexPrice: Dec | undefined;

  /** `w` must hold decimal strings (the wire schemas and the recording reader check them). */
  constructor(w: WireTicker) {
    this.symbol = symbolId(w.symbol);
    this.timestamp = Number(w.timestamp);
    this.price = Number(w.last);
    this.bid = Number(w.best_bid);
    this.ask = Number(w.best_ask);
    this.mark = optionalNumber(w.markPrice);
    this.index = optionalNumber(w.indexPrice);
    this.wire = w;
  }

  get last(): Dec {
    return (this.#last ??= dec(this.wire.last));
  }

  get bestBid(): Dec {
    return (this.#bestBid ??= dec(this.wire.best_bid));
  }

  get bestAsk(): Dec {
    return (this.#bestAsk ??= dec(this.wire.best_ask));
  }

  get markPrice(): Dec | undefined {
    const w = this.wire.markPrice;
    return w === undefined ? undefined : (this.#markPrice ??= dec(w));
  }

  get indexPrice(): Dec | undefined {
    const w = this.wire.indexPrice;
    return w === undefined ? undefined : (this.#indexPrice ??= dec(w));
  }
}
