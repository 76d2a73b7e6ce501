// Marble helpers: test a strategy (stream style or hooks) frame by frame with RxJS's TestScheduler.
// The strategy runs on the real host (intent validation, isolation) with a context whose clock is
// the TestScheduler's; the engine state it reads is a small fake you control (`state`), because
// marble tests are about the strategy's own logic. For orders, fills and PnL use runStrategy.
//
//   strategyMarbles({ strategy, params: { fastPeriod: 2 } }, (m) => {
//     const tickers$ = m.tickers('-a-b-c', { a: '100', b: '101', c: '99' });
//     m.expectObservable(m.run({ tickers$ })).toBe('-----x', { x: 'place open_short 0.01 market #ema:open' });
//   });
import pino from 'pino';
import { map, NEVER, tap, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { decToString, ZERO } from '../../core/decimal.ts';
import { symbolId, type StrategyId, type SymbolId } from '../../core/ids.ts';
import type { ContractSpec, Ticker } from '../../core/market.ts';
import type { Order } from '../../core/orders.ts';
import { ContractTable, type ContractOverride } from '../../exchange/sim/contracts.ts';
import { tickerFromWire } from '../../exchange/weex/mappers.ts';
import type { TradingState } from '../../risk/trading-state.ts';
import type { StrategyDefinition } from '../define.ts';
import { hostStrategy } from '../host.ts';
import { instantiateStrategy } from '../instantiate.ts';
import type { PnlSnapshot, PositionSnapshot, StrategyFill, StrategyStateSource } from '../types.ts';
import { describeIntent } from './describe.ts';
import { toPolls, type TickSpec } from './ticks.ts';

/** The engine state a strategy reads during a marble test. Every field optional. */
export interface FakeState {
  readonly openOrders?: (strategy: StrategyId) => readonly Order[];
  readonly position?: (strategy: StrategyId, symbol: SymbolId) => PositionSnapshot;
  readonly pnl?: (strategy: StrategyId) => PnlSnapshot;
  readonly tradingState?: () => TradingState;
}

export interface MarbleOptions {
  readonly strategy: StrategyDefinition<never> | StrategyDefinition;
  readonly params?: Readonly<Record<string, unknown>>;
  /** Default `test`. */
  readonly id?: string;
  /** Contract rules over the built-in ones (BTC tick 0.1 / step 0.0001, ETH tick 0.01 / step 0.001). */
  readonly contracts?: Readonly<Record<string, ContractOverride>>;
  readonly state?: FakeState;
  /**
   * Deep-equality assertion for the frames, e.g. `(a, e) => expect(a).toEqual(e)` for vitest's
   * diffs. Default: compares the frames' JSON and throws with both.
   */
  readonly assert?: (actual: unknown, expected: unknown) => void;
}

export interface StrategyMarbles extends RunHelpers {
  /** The instance's symbols (the first is the default of `tickers`). */
  readonly symbols: readonly SymbolId[];
  /**
   * A hot ticker stream from a marble diagram. Values are prices (`'64000.5'`) or tick specs; the
   * ticker's timestamp is its frame.
   */
  tickers(
    marble: string,
    values: Readonly<Record<string, string | TickSpec>>,
    symbol?: string,
  ): Observable<Ticker>;
  /**
   * The strategy's output on the real host, one text per intent (describeIntent), or
   * `disabled: <reason>` when the host disables it.
   */
  run(inputs: {
    readonly tickers$?: Observable<Ticker>;
    readonly orders$?: Observable<Order>;
    readonly fills$?: Observable<StrategyFill>;
    /** Clock pulses (frames) that drive `onTimer` / `timer$`. */
    readonly clock$?: Observable<number>;
  }): Observable<string>;
}

/** The helpers TestScheduler.run hands to its callback (hot, cold, expectObservable, ...). */
export type RunHelpers = Parameters<Parameters<TestScheduler['run']>[0]>[0];

const FLAT = (symbol: SymbolId): PositionSnapshot => Object.freeze({ symbol, long: ZERO, short: ZERO });
const NO_PNL: PnlSnapshot = Object.freeze({ realized: ZERO, unrealized: ZERO, fees: ZERO, net: ZERO });

/** Runs `body` inside TestScheduler.run with the strategy instantiated on the scheduler's clock. */
export function strategyMarbles(o: MarbleOptions, body: (m: StrategyMarbles) => void): void {
  const ts = new TestScheduler(
    o.assert ??
      ((actual, expected) => {
        // Deep equality without a test framework dependency: compare the JSON of both frame lists.
        const a = JSON.stringify(actual, null, 1);
        const e = JSON.stringify(expected, null, 1);
        if (a !== e) throw new Error(`marble mismatch\nexpected: ${e}\nactual:   ${a}`);
      }),
  );
  const contracts = new ContractTable(o.contracts ?? {});
  const latest = new Map<SymbolId, Ticker>();
  const fake = o.state ?? {};
  const state: StrategyStateSource = {
    latestTicker: (s) => latest.get(s),
    openOrders: (strategy) => fake.openOrders?.(strategy) ?? [],
    position: (strategy, symbol) => fake.position?.(strategy, symbol) ?? FLAT(symbol),
    pnl: (strategy) => fake.pnl?.(strategy) ?? NO_PNL,
    tradingState: () => fake.tradingState?.() ?? 'ACTIVE',
  };
  const definition = o.strategy as StrategyDefinition;
  ts.run((helpers) => {
    const clock = { now: () => ts.now() };
    // Specs for every symbol the contracts table or the strategy names (unknown ones take defaults).
    const specs = new Map<SymbolId, ContractSpec>();
    const probe = definition.params.safeParse(o.params ?? {});
    const wanted = probe.success ? definition.symbols(probe.data) : [];
    for (const s of [...contracts.namedSymbols(), ...wanted.map(String)])
      specs.set(symbolId(s), contracts.spec(s));
    const inst = instantiateStrategy({
      id: o.id ?? 'test',
      definition,
      params: o.params ?? {},
      specs,
      clock,
      log: pino({ level: 'silent' }),
      state,
    });
    const first = inst.symbols[0] as SymbolId;
    const m: StrategyMarbles = {
      ...helpers,
      symbols: inst.symbols,
      tickers: (marble, values, symbol = first) => {
        const converted: Record<string, Ticker> = {};
        for (const [k, v] of Object.entries(values)) {
          const spec: TickSpec = typeof v === 'string' ? { last: v } : v;
          // The frame is not known here; the timestamp is set when the value is emitted.
          const [poll] = toPolls([{ ...spec, at: 0, symbol: spec.symbol ?? symbol }], {
            startMs: 0,
            stepMs: 1,
            defaultSymbol: symbol,
            tickOf: (s) => decToString(contracts.rules(s).priceTick),
          });
          const w = poll?.tickers[0];
          if (w !== undefined) converted[k] = tickerFromWire(w);
        }
        // A fresh ticker per emission, stamped with the frame's time (a spread would drop the
        // TickerView's exact fields, which are getters).
        return helpers
          .hot(marble, converted)
          .pipe(map((t) => Object.freeze(tickerFromWire({ ...t.wire, timestamp: String(ts.now()) }))));
      },
      run: (inputs) => {
        const tickers$ = (inputs.tickers$ ?? NEVER).pipe(tap((t: Ticker) => latest.set(t.symbol, t)));
        const out$ = hostStrategy(
          inst,
          {
            tickers$,
            orders$: inputs.orders$ ?? NEVER,
            fills$: inputs.fills$ ?? NEVER,
            clock$: inputs.clock$ ?? NEVER,
          },
          clock,
        );
        return out$.pipe(
          map((x) => (x.kind === 'StrategyIntent' ? describeIntent(x.intent) : `disabled: ${x.reason}`)),
        );
      },
    };
    body(m);
  });
}
