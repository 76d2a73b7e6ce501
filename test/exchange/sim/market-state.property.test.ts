// The simulator's market (src/exchange/sim/market-state.ts) answers exactly as the eager version it
// replaced — a book, a liquidity reset and a view made for every ticker of every snapshot — over
// random snapshot sequences: symbols missing from a snapshot (their book stays that of the last one
// holding them), listed twice (the last counts), in any order, empty snapshots, liquidity consumed
// between snapshots, the same symbols listed again in the same order (lines of one layout: the
// snapshot is then installed without reading a row); for plain ticker arrays and for recording lines
// read lazily (fast-line.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, type Dec } from '../../../src/core/decimal.ts';
import type { WireTicker } from '../../../src/core/market.ts';
import { rowsOf, tickerRows, type TickerRows } from '../../../src/core/ticker-rows.ts';
import { MarketState } from '../../../src/exchange/sim/market-state.ts';
import { parseCommonPollLine } from '../../../src/market/recording/fast-line.ts';
import { wire } from '../../market/helpers.ts';

const UNIVERSE = ['cmt_aaausdt', 'cmt_bbbusdt', 'cmt_cccusdt', 'cmt_dddusdt', 'cmt_eeeusdt'];
const CAP = dec('5');

/** The eager model: what the matching core kept per ticker before MarketState. */
class EagerMarket {
  readonly books = new Map<string, { readonly wire: WireTicker; readonly time: number }>();
  readonly liquidity = new Map<string, { buy: Dec | undefined; sell: Dec | undefined }>();
  readonly first = new Map<string, string>();
  tickers: readonly WireTicker[] = [];

  install(tickers: readonly WireTicker[], time: number): void {
    this.tickers = tickers;
    for (const t of tickers) {
      this.books.set(t.symbol, { wire: t, time });
      if (!this.first.has(t.symbol)) this.first.set(t.symbol, t.last);
      this.liquidity.set(t.symbol, { buy: CAP, sell: CAP });
    }
  }
}

const positive = (s: string): string | undefined => (dec(s).gt(0) ? dec(s).toFixed() : undefined);

interface Step {
  /** Indexes into UNIVERSE (repeats allowed), with prices. */
  readonly picks: readonly { readonly symbol: number; readonly price: number }[];
  readonly dt: number;
  /** List the previous snapshot's symbols again, in its order (new prices): a recording's usual case. */
  readonly again: boolean;
  /** Liquidity taken afterwards: symbol index, side, amount. */
  readonly take: readonly { readonly symbol: number; readonly buy: boolean; readonly amount: number }[];
}

const step: fc.Arbitrary<Step> = fc.record({
  picks: fc.array(
    fc.record({ symbol: fc.nat(UNIVERSE.length - 1), price: fc.integer({ min: 1, max: 50 }) }),
    { maxLength: 7 },
  ),
  dt: fc.integer({ min: 0, max: 3 }),
  again: fc.boolean(),
  take: fc.array(
    fc.record({
      symbol: fc.nat(UNIVERSE.length - 1),
      buy: fc.boolean(),
      amount: fc.integer({ min: 1, max: 3 }),
    }),
    { maxLength: 3 },
  ),
});

function snapshot(s: Step, t: number): WireTicker[] {
  return s.picks.map((p, i) =>
    wire(UNIVERSE[p.symbol] as string, t, `${p.price}.${i}`, {
      best_bid: String(p.price),
      best_ask: `${p.price}.5`,
    }),
  );
}

/** The symbols of `previous`, in its order, priced anew from `s` where it has a price. */
function again(previous: Step['picks'], s: Step): Step['picks'] {
  return previous.map((p, i) => ({ symbol: p.symbol, price: s.picks[i]?.price ?? p.price + 1 }));
}

/** The rows of a snapshot: over the array, or over its recording line parsed lazily. */
function rowsFor(tickers: WireTicker[], t: number, lazy: boolean): TickerRows {
  if (!lazy) return rowsOf(tickers);
  const poll = parseCommonPollLine(JSON.stringify({ t, tickers }));
  if (poll === undefined) throw new Error('the fast path refused a canonical line');
  return tickerRows(poll);
}

function check(market: MarketState, eager: EagerMarket, wanted: ReadonlySet<string>): void {
  // The snapshot, its views, the views of a few symbols, and the order of symbols in it.
  expect(market.tickers()).toEqual(eager.tickers);
  expect(market.views().map((v) => v.wire)).toEqual(eager.tickers);
  expect(market.viewsOf(wanted).map((v) => v.wire)).toEqual(
    eager.tickers.filter((t) => wanted.has(t.symbol)),
  );
  expect(market.inSnapshotOrder(wanted)).toEqual(
    eager.tickers.filter((t) => wanted.has(t.symbol)).map((t) => t.symbol),
  );
  // Views are shared: the same object for the same row, whoever asks.
  const all = market.views();
  for (const v of market.viewsOf(wanted)) expect(all).toContain(v);
  for (const symbol of UNIVERSE) {
    const b = market.book(symbol);
    const e = eager.books.get(symbol);
    expect(market.has(symbol)).toBe(e !== undefined);
    if (e === undefined) {
      expect(b).toBeUndefined();
      expect(market.liquidity(symbol)).toBeUndefined();
      continue;
    }
    expect(b?.time).toBe(e.time);
    expect(b?.bid?.toFixed()).toBe(positive(e.wire.best_bid));
    expect(b?.ask?.toFixed()).toBe(positive(e.wire.best_ask));
    expect(b?.last?.toFixed()).toBe(positive(e.wire.last));
    const liq = market.liquidity(symbol);
    const el = eager.liquidity.get(symbol);
    expect([liq?.buy?.toFixed(), liq?.sell?.toFixed()]).toEqual([el?.buy?.toFixed(), el?.sell?.toFixed()]);
  }
  // Every symbol seen, first seen first: its first and latest `last`.
  expect(market.latest().map((l) => [l.symbol, l.firstLast, l.last])).toEqual(
    [...eager.first].map(([symbol, first]) => [symbol, first, eager.books.get(symbol)?.wire.last]),
  );
}

describe('MarketState', () => {
  it.each([
    ['ticker arrays', false],
    ['recording lines read lazily', true],
  ])('answers as a book, a liquidity reset and a view per ticker would: %s', (_name, lazy) => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), fc.subarray(UNIVERSE), (steps, w) => {
        const wanted = new Set(w);
        const market = new MarketState(CAP);
        const eager = new EagerMarket();
        let t = 1_000;
        let previous: Step['picks'] | undefined;
        for (const given of steps) {
          const s =
            given.again && previous !== undefined ? { ...given, picks: again(previous, given) } : given;
          previous = s.picks;
          t += s.dt;
          const tickers = snapshot(s, t);
          market.install(rowsFor(tickers, t, lazy), t);
          eager.install(tickers, t);
          check(market, eager, wanted);
          // Another set of the same symbols: viewsOf resolves a set once and keeps it while that set
          // comes back (the checks use one set throughout, across snapshots; this one does not).
          expect(market.viewsOf(new Set(w)).map((v) => v.wire)).toEqual(
            eager.tickers.filter((x) => wanted.has(x.symbol)),
          );
          for (const x of s.take) {
            const symbol = UNIVERSE[x.symbol] as string;
            const liq = market.liquidity(symbol);
            const el = eager.liquidity.get(symbol);
            expect(liq === undefined).toBe(el === undefined);
            if (liq === undefined || el === undefined) continue;
            if (x.buy) {
              liq.buy = liq.buy?.minus(x.amount);
              el.buy = el.buy?.minus(x.amount);
            } else {
              liq.sell = liq.sell?.minus(x.amount);
              el.sell = el.sell?.minus(x.amount);
            }
          }
          check(market, eager, wanted);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads only the symbol of a row nobody asks about: its ticker object is never made', () => {
    const tickers = UNIVERSE.map((s, i) => wire(s, 1_000, `${i + 1}`));
    const poll = parseCommonPollLine(JSON.stringify({ t: 1_000, tickers }));
    if (poll === undefined) throw new Error('the fast path refused a canonical line');
    const rows = tickerRows(poll);
    const market = new MarketState(undefined);
    market.install(rows, 1_000);
    // Sampling reads `last` texts, not objects.
    const into = new Uint8Array(64);
    expect(Buffer.from(into.subarray(0, market.latest()[2]?.copyLast(into, 0) ?? 0)).toString()).toBe('3');
    expect(market.latest().map((l) => l.last)).toEqual(['1', '2', '3', '4', '5']);
    expect(UNIVERSE.map((_, i) => rows.made(i))).toEqual([false, false, false, false, false]);
    // A view of one symbol, and the book of another: those two objects only.
    expect(market.viewsOf(new Set([UNIVERSE[1] as string])).map((v) => v.price)).toEqual([2]);
    expect(market.book(UNIVERSE[3] as string)?.last?.toFixed()).toBe('4');
    expect(UNIVERSE.map((_, i) => rows.made(i))).toEqual([false, true, false, true, false]);
    // The whole snapshot, asked for: every object, the same ones.
    const made = rows.tickerAt(1);
    expect(market.tickers()).toEqual(tickers);
    expect(market.tickers()[1]).toBe(made);
    expect(poll.tickers).toBe(market.tickers());
  });
});
