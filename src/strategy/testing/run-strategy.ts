// runStrategy: one strategy over inline ticks or a recording, in virtual time, through the real
// engine and the in-process simulator, with the same reconcile path as a backtest. Deterministic:
// the same inputs give the same orders, fills and events. It takes milliseconds per hundred ticks.
import type { Logger } from 'pino';
import { strategyId, type SymbolId } from '../../core/ids.ts';
import type { RecordedPoll } from '../../core/market.ts';
import { decToString } from '../../core/decimal.ts';
import { BadInputError } from '../../core/errors.ts';
import { ContractTable, type ContractOverride } from '../../exchange/sim/contracts.ts';
import type { FaultProfile } from '../../exchange/sim/faults.ts';
import type { WeightLimits } from '../../exchange/sim/weights.ts';
import { tickerFromWire } from '../../exchange/weex/mappers.ts';
import { readRecording } from '../../market/recording/reader.ts';
import { parseStrategyParams, strategySymbols, type StrategyDefinition } from '../define.ts';
import { loadStrategy } from '../loader.ts';
import { collectRun, type SeenTicker, type StrategyRun } from './result.ts';
import { Session, type HarnessConfig } from './session.ts';
import { toPolls, type TickInput } from './ticks.ts';

/** Start of the clock for inline ticks: 2023-11-14T22:13:20Z. Any fixed value keeps runs deterministic. */
export const DEFAULT_START_MS = 1_700_000_000_000;

/** Levers a test may pull while the run goes on (called before each poll is replayed). */
export interface RunControl {
  /** Clock time (the poll's time). */
  readonly now: number;
  /** HALTED, and every open order is canceled (the operator's kill switch). */
  killSwitch(reason: string): void;
  /** The underlying session (engine, simulator, store, virtual time) for anything else. */
  readonly session: Session;
}

export interface RunStrategyOptions {
  /** A definition (`import strategy from './my-strategy.ts'`) or the path of a strategy file. */
  readonly strategy: StrategyDefinition<never> | StrategyDefinition | string;
  /** Raw params, validated by the strategy's schema (its defaults apply). */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Instance id (part of every client_oid). Default `test`. */
  readonly id?: string;
  /** Inline ticks (see ticks.ts), recorded polls, or the path of a recording (.ndjson / .ndjson.gz). */
  readonly ticks: readonly TickInput[] | string | AsyncIterable<RecordedPoll>;
  /** Clock time of offset 0 for inline ticks. Default DEFAULT_START_MS. */
  readonly startMs?: number;
  /** Spacing of inline ticks without `at`. Default 1000 ms. */
  readonly stepMs?: number;
  /** Virtual time allowed after the last tick for fills and order updates to arrive. Default 6000 ms. */
  readonly settleMs?: number;
  /**
   * Config sections as a config file writes them: `risk`, `paper` (fill model, slippage, fees,
   * liquidity cap, starting balance), `polling`, `budget`, `executor`, `orders`. Defaults as in a file.
   */
  readonly config?: HarnessConfig;
  /** Contract rules per symbol over the simulator's built-in ones. */
  readonly contracts?: Readonly<Record<string, ContractOverride>>;
  /** Simulator faults (see src/exchange/sim/faults.ts). */
  readonly faults?: FaultProfile;
  /** The simulator's weight limits (default: the venue's); below `config.budget` a strategy meets 429s. */
  readonly simLimits?: Partial<WeightLimits>;
  /** Seeds the simulator's ids and fault dice. Default 1. */
  readonly seed?: number;
  /** Relative strategy paths resolve against this directory. Default: the working directory. */
  readonly baseDir?: string;
  /** Default: silent. Pass a pino logger to see the strategy's and the engine's logs. */
  readonly log?: Logger;
  /** Called before each poll is replayed. */
  readonly beforeTick?: (poll: RecordedPoll, control: RunControl) => void | Promise<void>;
}

async function definitionOf(o: RunStrategyOptions): Promise<StrategyDefinition> {
  if (typeof o.strategy === 'string') return (await loadStrategy(o.strategy, o.baseDir)).definition;
  return o.strategy;
}

function pollSource(
  o: RunStrategyOptions,
  defaultSymbol: string,
  contracts: ContractTable,
): AsyncIterable<RecordedPoll> {
  const t = o.ticks;
  if (typeof t === 'string') return readRecording(t);
  if (Array.isArray(t)) {
    const polls = toPolls(t as readonly TickInput[], {
      startMs: o.startMs ?? DEFAULT_START_MS,
      stepMs: o.stepMs ?? 1_000,
      defaultSymbol,
      tickOf: (s) => decToString(contracts.rules(s).priceTick),
    });
    return {
      [Symbol.asyncIterator]: () => {
        let i = 0;
        return {
          next: () =>
            Promise.resolve(
              i < polls.length
                ? { done: false, value: polls[i++] as RecordedPoll }
                : { done: true, value: undefined },
            ),
        };
      },
    };
  }
  return t as AsyncIterable<RecordedPoll>;
}

export async function runStrategy(o: RunStrategyOptions): Promise<StrategyRun> {
  const definition = await definitionOf(o);
  const id = o.id ?? 'test';
  const params = parseStrategyParams(definition, id, o.params ?? {});
  const symbols = strategySymbols(definition, id, params);
  const first = symbols[0] as SymbolId;
  const contracts = new ContractTable(o.contracts ?? {});

  const it = pollSource(o, first, contracts)[Symbol.asyncIterator]();
  const head = await it.next();
  if (head.done === true) throw new BadInputError('runStrategy: no ticks to replay');
  const firstPoll = head.value;

  const session = new Session({
    strategies: [{ id, definition, params: o.params ?? {} }],
    startMs: Math.min(firstPoll.t, o.startMs ?? firstPoll.t),
    symbols,
    ...(o.config !== undefined ? { config: o.config } : {}),
    ...(o.contracts !== undefined ? { contracts: o.contracts } : {}),
    ...(o.faults !== undefined ? { faults: o.faults } : {}),
    ...(o.simLimits !== undefined ? { simLimits: o.simLimits } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.log !== undefined ? { log: o.log } : {}),
  });
  const history = new Map<SymbolId, SeenTicker[]>();
  const replay = async (poll: RecordedPoll): Promise<void> => {
    if (o.beforeTick !== undefined) {
      await session.vt.advanceTo(poll.t, () => session.settle());
      await o.beforeTick(poll, {
        now: poll.t,
        killSwitch: (reason) => session.engine.killSwitch(reason),
        session,
      });
    }
    for (const w of poll.tickers) {
      const ticker = tickerFromWire(w);
      const list = history.get(ticker.symbol) ?? [];
      list.push({ t: poll.t, ticker });
      history.set(ticker.symbol, list);
    }
    await session.feed(poll);
  };
  try {
    await replay(firstPoll);
    for (let r = await it.next(); r.done !== true; r = await it.next()) await replay(r.value);
    await session.idleFor(o.settleMs ?? 6_000);
    const inst = session.engine.strategies[0];
    return collectRun(
      session,
      strategyId(id),
      { name: definition.name, version: definition.version, params: inst?.params ?? params },
      history,
    );
  } finally {
    await it.return?.();
    session.close();
  }
}
