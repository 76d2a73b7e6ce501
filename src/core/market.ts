import type { Dec } from './decimal.ts';
import type { SymbolId } from './ids.ts';

/** A ticker as the wire carries it: every value a string, exactly as recorded. */
export interface WireTicker {
  readonly symbol: string;
  readonly last: string;
  readonly best_bid: string;
  readonly best_ask: string;
  readonly high_24h: string;
  readonly low_24h: string;
  readonly volume_24h: string;
  readonly timestamp: string;
  readonly priceChangePercent: string;
  readonly base_volume: string;
  readonly markPrice?: string;
  readonly indexPrice?: string;
}

/**
 * A parsed ticker, in two views of the same values:
 * - **numbers for signals**: `price` (the last trade), `bid`, `ask`, `mark`, `index` are JavaScript
 *   numbers, for indicator math (moving averages, z-scores, …), as every peer does. They are the
 *   nearest doubles to the wire's decimals: fine to decide with, never to send or to count money;
 * - **exact decimals** for what reaches an order or the books: `last`, `bestBid`, `bestAsk`,
 *   `markPrice`, `indexPrice` (`Dec`). A ticker from the wire decodes them on first read only
 *   (TickerView), so a poll nobody prices exactly costs no decimal arithmetic.
 * The 24 h statistics stay in `wire` exactly as received (they are displayed, never computed with).
 */
export interface Ticker {
  readonly symbol: SymbolId;
  /** Exchange timestamp, epoch ms. */
  readonly timestamp: number;
  /** Last trade price as a number, for signals. */
  readonly price: number;
  /** Best bid as a number, for signals. */
  readonly bid: number;
  /** Best ask as a number, for signals. */
  readonly ask: number;
  /** Mark price as a number, for signals, when the venue sent one. */
  readonly mark?: number | undefined;
  /** Index price as a number, for signals, when the venue sent one. */
  readonly index?: number | undefined;
  readonly last: Dec;
  readonly bestBid: Dec;
  readonly bestAsk: Dec;
  readonly markPrice?: Dec | undefined;
  readonly indexPrice?: Dec | undefined;
  readonly wire: WireTicker;
}

/** Trading rules of one contract (from `market/contracts`). */
export interface ContractSpec {
  readonly symbol: SymbolId;
  /** Quantity step (10^-size_increment), in base coin. */
  readonly sizeStep: Dec;
  /** Price tick (priceEndStep × 10^-tick_size). */
  readonly priceTick: Dec;
  readonly minSize: Dec;
  readonly maxSize: Dec;
  readonly makerFeeRate: Dec;
  readonly takerFeeRate: Dec;
}

/** One line of a recording: one poll of the tickers endpoint (ARCHITECTURE.md, recording format). */
export interface RecordedPoll {
  /** Receive time, epoch ms. */
  readonly t: number;
  /** Wire tickers exactly as the endpoint returned them. */
  readonly tickers: readonly WireTicker[];
}

/** The optional first line of a recording. */
export interface RecordingMeta {
  readonly [key: string]: unknown;
}
