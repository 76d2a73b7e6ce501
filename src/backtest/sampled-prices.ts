// The report's price series: every symbol's latest price at each equity sample, for every symbol the
// recording showed (traded or not: the report charts them all).
//
// A recording may list hundreds of symbols. Kept as exact decimals per sample and symbol, they would
// cost the run a decode per symbol per sample, and hold one object per symbol per sample until the
// end (a young-generation copy each, then old-generation marking: the garbage collector's work grew
// with them). So a sample keeps ONE string: the symbols' `last` texts joined in the order the symbols
// were first seen. The series are built from those lines only when the report first reads them,
// each price decoded exactly when read (the same decimals as decoding each text at once).
import { dec, type Dec } from '../core/decimal.ts';
import type { PricePoint } from './report/types.ts';

/** Decimal text never holds a comma. */
const SEPARATOR = ',';
const SEPARATOR_BYTE = 44;

/** What a price line is made of: each symbol's latest `last` text (MarketState.latest). */
export interface LatestPrice {
  /** Copies the text (ASCII) into `into` from `at`; the byte after it, or -1 when it does not fit. */
  copyLast(into: Uint8Array, at: number): number;
}

/**
 * Makes price lines: the latest `last` text of each symbol, in the order given, joined by commas, in
 * one string of its own (copied byte by byte from the recording's lines: no string per price, and
 * nothing that keeps a line alive).
 */
export class PriceLines {
  #buf = Buffer.allocUnsafe(4096);

  line(latest: readonly LatestPrice[]): string {
    for (;;) {
      const buf = this.#buf;
      let at = 0;
      for (let i = 0; i < latest.length && at >= 0; i++) {
        if (i > 0) {
          if (at >= buf.length) at = -1;
          else buf[at++] = SEPARATOR_BYTE;
        }
        if (at >= 0) at = (latest[i] as LatestPrice).copyLast(buf, at);
      }
      if (at >= 0) return buf.toString('latin1', 0, at);
      this.#buf = Buffer.allocUnsafe(buf.length * 2);
    }
  }
}

/**
 * A recording charts every symbol it holds when it holds at most this many; a wider one (the tickers
 * endpoint lists hundreds of contracts) charts the symbols the strategies trade. Sampling every symbol
 * of a wide recording at every equity sample would make a poll's cost grow with the recording's
 * width (issue #24: 200 symbols must cost at most twice 5), for a report nobody could read.
 */
export const CHART_ALL_UP_TO = 8;

/**
 * The charted symbols' entries of a live `latest` list (it only grows at its end, as new symbols are
 * seen), in the same order: the filtered list grows at its end too, so price lines stay aligned.
 */
export class ChartedLatest<L extends { readonly symbol: string }> {
  readonly #latest: readonly L[];
  readonly #charted: (symbol: string) => boolean;
  readonly #list: L[] = [];
  #seen = 0;

  constructor(latest: readonly L[], charted: (symbol: string) => boolean) {
    this.#latest = latest;
    this.#charted = charted;
  }

  /** The charted entries now (the same array, grown when new symbols were seen). */
  list(): readonly L[] {
    for (; this.#seen < this.#latest.length; this.#seen++) {
      const l = this.#latest[this.#seen] as L;
      if (this.#charted(l.symbol)) this.#list.push(l);
    }
    return this.#list;
  }
}

/** A sampled price: the recording's text, decoded exactly on first read. */
class SampledPrice implements PricePoint {
  readonly t: number;
  readonly #text: string;
  #last: Dec | undefined;

  constructor(t: number, text: string) {
    this.t = t;
    this.#text = text;
  }

  get last(): Dec {
    return (this.#last ??= dec(this.#text));
  }
}

export interface PriceSample {
  readonly t: number;
  /** priceLine of the symbols seen by then: a prefix of `symbols`, in that order. */
  readonly line: string;
}

/** The texts of a price line. */
function textsOf(line: string): string[] {
  return line.length === 0 ? [] : line.split(SEPARATOR);
}

/**
 * Per symbol, its price at every sample that knew it, in sample order; keys in `symbols` order, for
 * the symbols some sample knew (samples in time order: the last knows the most). Each symbol's list
 * is built when first read: reading any builds them all, from one split of each line.
 */
export function sampledPrices(
  allSymbols: readonly string[],
  samples: readonly PriceSample[],
): Readonly<Record<string, readonly PricePoint[]>> {
  const last = samples[samples.length - 1];
  const symbols = allSymbols.slice(0, last === undefined ? 0 : textsOf(last.line).length);
  const out: Record<string, readonly PricePoint[]> = {};
  let built: PricePoint[][] | undefined;
  const build = (): PricePoint[][] => {
    if (built !== undefined) return built;
    const lists: PricePoint[][] = symbols.map(() => []);
    for (const { t, line } of samples) {
      const texts = textsOf(line);
      for (let i = 0; i < texts.length; i++)
        (lists[i] as PricePoint[]).push(new SampledPrice(t, texts[i] as string));
    }
    for (let i = 0; i < symbols.length; i++) {
      Object.defineProperty(out, symbols[i] as string, {
        value: lists[i],
        enumerable: true,
        writable: false,
        configurable: false,
      });
    }
    return (built = lists);
  };
  symbols.forEach((symbol, i) => {
    Object.defineProperty(out, symbol, {
      get: () => build()[i],
      enumerable: true,
      configurable: true,
    });
  });
  return out;
}
