// The floor under the replay figure: the CPU a backtest would need if the engine cost nothing.
//
// Per recording line it does only what no engine can skip:
// - JSON.parse of the line;
// - the Ticker a strategy is handed (tickerFromWire: the symbol's prices as exact decimals);
// - the strategy's own onTicker, called directly.
//
// The strategy gets a real context (src/strategy/context.ts: its intent builders validate as they do
// in the engine) over a stand-in state: no open orders, trading ACTIVE, and a position that follows
// its placements as if each filled at once (so a strategy that acts on its position, like sma-cross,
// places about as often as it does in the replay). Nothing is risk-checked, sent, stored or
// reconciled: that is the engine's share, which the replay adds on top.
//
// bare parse ÷ this floor is the highest replay ÷ bare-parse ratio the strategy allows: the replay
// figure can approach it but never pass it.
import pino from 'pino';
import { dec, type Dec } from '../src/core/decimal.ts';
import { strategyId, symbolId, type SymbolId } from '../src/core/ids.ts';
import type { PlaceIntent } from '../src/core/intents.ts';
import type { Ticker, WireTicker } from '../src/core/market.ts';
import { ContractTable } from '../src/exchange/sim/contracts.ts';
import { tickerFromWire } from '../src/exchange/weex/mappers.ts';
import { createStrategyContext } from '../src/strategy/context.ts';
import { parseStrategyParams, strategySymbols, type StrategyDefinition } from '../src/strategy/define.ts';
import {
  isStreamInstance,
  type HookStrategyInstance,
  type IntentOutput,
  type PnlSnapshot,
  type PositionSnapshot,
} from '../src/strategy/types.ts';

export interface FloorRun {
  /** CPU milliseconds of the best run. */
  readonly cpuMs: number;
  /** Tickers handed to the strategy in one run. */
  readonly tickers: number;
  /** Placements it returned in one run. */
  readonly placements: number;
}

const ZERO = dec(0);
const FLAT_PNL: PnlSnapshot = Object.freeze({ realized: ZERO, unrealized: ZERO, fees: ZERO, net: ZERO });

/** Long and short sizes per symbol, moved by placements as if each filled at once. */
class InstantPositions {
  readonly #legs = new Map<SymbolId, { long: Dec; short: Dec }>();

  snapshot(symbol: SymbolId): PositionSnapshot {
    const l = this.#legs.get(symbol);
    return { symbol, long: l?.long ?? ZERO, short: l?.short ?? ZERO };
  }

  apply(p: PlaceIntent): void {
    const l = this.#legs.get(p.symbol) ?? { long: ZERO, short: ZERO };
    if (p.side === 'open_long') l.long = l.long.plus(p.size);
    else if (p.side === 'open_short') l.short = l.short.plus(p.size);
    else if (p.side === 'close_long') l.long = l.long.minus(p.size).gt(0) ? l.long.minus(p.size) : ZERO;
    else l.short = l.short.minus(p.size).gt(0) ? l.short.minus(p.size) : ZERO;
    this.#legs.set(p.symbol, l);
  }
}

function placementsOf(out: IntentOutput): PlaceIntent[] {
  if (out === undefined || out === null) return [];
  const list = Array.isArray(out) ? (out as readonly PlaceIntent[]) : [out as PlaceIntent];
  return list.filter((i) => i.kind === 'place');
}

/** A fresh instance of the strategy over the stand-in state; its hooks, and what it watches. */
function instantiate(
  definition: StrategyDefinition,
  params: unknown,
  latest: Map<SymbolId, Ticker>,
  positions: InstantPositions,
): { hooks: HookStrategyInstance; symbols: ReadonlySet<string> } {
  const id = strategyId('floor');
  const parsed = parseStrategyParams(definition, id, params);
  const symbols = strategySymbols(definition, id, parsed).map((s) => symbolId(s));
  const contracts = new ContractTable();
  const ctx = createStrategyContext({
    id,
    symbols,
    specs: new Map(symbols.map((s) => [s, contracts.spec(s)])),
    clock: { now: () => 0 },
    log: pino({ level: 'silent' }),
    state: {
      latestTicker: (s) => latest.get(s),
      openOrders: () => [],
      position: (_id, s) => positions.snapshot(s),
      pnl: () => FLAT_PNL,
      tradingState: () => 'ACTIVE',
    },
  });
  const instance = definition.create(ctx, parsed);
  if (isStreamInstance(instance)) throw new Error('the strategy floor calls hook-style strategies only');
  return { hooks: instance, symbols: new Set(symbols) };
}

/** One pass over `lines`: parse, build tickers, and call the strategy when there is one. */
function onePass(
  lines: readonly string[],
  definition: StrategyDefinition | undefined,
  params: unknown,
): { tickers: number; placements: number } {
  const latest = new Map<SymbolId, Ticker>();
  const positions = new InstantPositions();
  const strategy = definition !== undefined ? instantiate(definition, params, latest, positions) : undefined;
  let tickers = 0;
  let placements = 0;
  for (const line of lines) {
    const poll = JSON.parse(line) as { tickers: readonly WireTicker[] };
    for (const w of poll.tickers) {
      if (strategy !== undefined && !strategy.symbols.has(w.symbol)) continue;
      const t = tickerFromWire(w);
      latest.set(t.symbol, t);
      tickers++;
      if (strategy === undefined) continue;
      for (const p of placementsOf(strategy.hooks.onTicker?.(t))) {
        positions.apply(p);
        placements++;
      }
    }
  }
  return { tickers, placements };
}

/**
 * The best of `runs` passes over `lines`, each with a fresh strategy instance. Without a definition,
 * the floor of a strategy that costs nothing: parse and tickers only.
 */
export function strategyFloor(
  lines: readonly string[],
  definition: StrategyDefinition | undefined,
  params: unknown,
  runs = 5,
): FloorRun {
  let best = Number.POSITIVE_INFINITY;
  let last = { tickers: 0, placements: 0 };
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    last = onePass(lines, definition, params);
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return { cpuMs: best, ...last };
}
