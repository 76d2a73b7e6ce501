// A virtual-time session: what `capibot run` composes (src/runner/session.ts: the engine with its
// risk gate, write-ahead store and weight-budgeted executor, plus the reconciliation pollers), over
// the in-process simulator (SimPort), with ONE RxJS VirtualTimeScheduler as clock, scheduler and
// timers. Settings come from a config object validated by the real config schema and mapped by the
// runner's own functions, so a harness run and a run of the same config behave alike.
//
// Nothing sleeps. `feed(poll)` moves time to the poll (every timer due meanwhile fires at its own
// time: budget waits, reconcile rounds, strategy timers), lets the market move in the simulator,
// reads the tickers THROUGH the weight budget (a tickers poll costs weight live too), hands them to
// the engine and waits until everything that can happen at that instant has happened.
//
// The engine is handed the tickers of the symbols its strategies trade only, as a live run's ticker
// feed does (src/runner/ticker-feed.ts): a poll may carry hundreds of symbols, and the others are
// never decoded (the simulator decodes a symbol only when an order or a request needs its book). The
// engine reads no other symbol's ticker: strategies see their own symbols only, and positions, open
// orders and the risk gate's prices are all on symbols strategies trade (the store starts empty).
import pino, { type Logger } from 'pino';
import type { ConfigInput } from '../../config/schema.ts';
import { ValidatedConfigSchema } from '../../config/cross-checks.ts';
import type { Config } from '../../config/schema.ts';
import { dec, type Dec } from '../../core/decimal.ts';
import { ENDPOINTS, type BulkCharges, type EndpointId, type UnsentReads } from '../../core/endpoints.ts';
import type { OrderEvent } from '../../core/events.ts';
import { ConfigError } from '../../core/errors.ts';
import { combineFootprints, type Footprint } from '../../core/footprint.ts';
import { symbolId, type SymbolId } from '../../core/ids.ts';
import type { ContractSpec, RecordedPoll, Ticker } from '../../core/market.ts';
import type { Engine, EngineStrategyConfig } from '../../engine/engine.ts';
import type { EngineEvent } from '../../engine/events.ts';
import { microtasks, VirtualTime } from '../../engine/virtual-time.ts';
import { ContractTable, type ContractOverride } from '../../exchange/sim/contracts.ts';
import type { FaultProfile } from '../../exchange/sim/faults.ts';
import { SimPort } from '../../exchange/sim/sim-port.ts';
import type { WeightLimits } from '../../exchange/sim/weights.ts';
import type { Reconciler } from '../../reconcile/pollers.ts';
import { engineOptions, reconcilerConfig, simRetentionMs } from '../../runner/options.ts';
import { createSession } from '../../runner/session.ts';
import { MemoryStore } from '../../store/memory-store.ts';
import { DEFAULT_BUDGET_CONFIG, type BudgetUsage } from '../../execution/budget.ts';
import { DeferredReads, type DeferralRoom } from './deferred-reads.ts';

/**
 * The config sections a harness run honours, exactly as a config file writes them (same names,
 * defaults and validation): `risk`, `paper` (the simulator: fill model, slippage, fees, liquidity
 * cap, starting balance), `polling`, `budget`, `executor`, `orders`.
 */
export type HarnessConfig = Partial<
  Pick<ConfigInput, 'risk' | 'paper' | 'polling' | 'budget' | 'executor' | 'orders'>
>;

export interface SessionOptions {
  readonly strategies: readonly EngineStrategyConfig[];
  /** Clock time at the start (epoch ms); no poll may be earlier. */
  readonly startMs: number;
  /** Symbols the strategies trade (they get contract specs). */
  readonly symbols: readonly string[];
  readonly config?: HarnessConfig;
  /** Contract rules per symbol over the built-in ones (BTC tick 0.1 / step 0.0001, ETH 0.01 / 0.001). */
  readonly contracts?: Readonly<Record<string, ContractOverride>>;
  /** Simulator faults (lost replies, 5xx, late fills, ...). */
  readonly faults?: FaultProfile;
  /** Seeds the simulator's ids and fault dice. Default 1. */
  readonly seed?: number;
  /**
   * The simulator's weight limits (default: the venue's). Set them below the config's `budget` to
   * see how a strategy meets 429s.
   */
  readonly simLimits?: Partial<WeightLimits>;
  /** Default: silent. */
  readonly log?: Logger;
  /**
   * Skip reconciliation rounds that cannot find anything (RoundShortcut, src/reconcile/sleeping-loops.ts):
   * same orders, fills, weights and request counts, far less work. Default true; false runs every
   * round (the equivalence test compares both).
   */
  readonly skipIdleRounds?: boolean;
  /**
   * Polls that meet a settled session with no timer due are fed without a promise (`feed`): same
   * charges, same tickers, same engine calls. Default true; false sends every read through the
   * executor's read lane (the equivalence test compares both).
   */
  readonly quietPolls?: boolean;
  /**
   * Discrete events: quiet polls' tickers reads are charged later, in one pass with the rounds the
   * sleeping loops slept through (DeferredReads), and those rounds are charged in closed form
   * (RoundShortcut.bulk), wherever no weight window can refuse any of them. Default true; false
   * charges each read at its poll and each round in turn (the equivalence test compares both).
   */
  readonly fastForward?: boolean;
}

/** Parses the harness config with the real schema (and its cross-field rules). */
export function harnessConfig(strategies: readonly EngineStrategyConfig[], c: HarnessConfig = {}): Config {
  const r = ValidatedConfigSchema.safeParse({
    mode: 'paper',
    ...c,
    strategies: strategies.map((s) => ({ id: s.id, file: 'harness.ts', params: s.params ?? {} })),
  });
  if (!r.success) {
    const lines = r.error.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`);
    throw new ConfigError(lines.join('; '), 'runStrategy config');
  }
  return r.data;
}

/**
 * Deferred reads charged in one pass (with the rounds slept through meanwhile). A pass costs about
 * the same whatever its length (the rounds go in closed form, and only the last window's requests
 * one by one), so passes are long: 4,096 reads (a few tens of kB while they wait). With passes of
 * 512, a quiet 1-second replay took about 8 % more CPU.
 */
export const DEFER_PASS = 4096;

export class Session {
  readonly vt: VirtualTime;
  readonly sim: SimPort;
  /** In memory, with the SQLite store's semantics (src/store/memory-store.ts). */
  readonly store: MemoryStore;
  readonly engine: Engine;
  readonly reconciler: Reconciler;
  readonly config: Config;
  readonly specs: ReadonlyMap<SymbolId, ContractSpec>;
  /** Every engine event and every order event reconciliation committed, in order. */
  readonly events: (EngineEvent | OrderEvent)[] = [];
  readonly prefix: string;
  readonly startingEquity: Dec;
  polls = 0;
  firstPollT: number | undefined;
  lastPollT: number | undefined;
  #closed = false;
  readonly #quietPolls: boolean;
  /** Quiet polls' tickers reads awaiting their charge (absent: every read is charged at once). */
  readonly #deferred: DeferredReads | undefined;
  /**
   * The venue's state version when the sleeping loops were last known to have seen it (a wake, or
   * every sleeping loop asleep on it): while it holds, a quiet poll need not ask them again.
   */
  #versionSeen = -1;
  /** The symbols the strategies trade: only their tickers reach the engine. */
  readonly #watched: ReadonlySet<string>;

  constructor(o: SessionOptions) {
    const log = o.log ?? pino({ level: 'silent' });
    this.#quietPolls = o.quietPolls ?? true;
    this.config = harnessConfig(o.strategies, o.config);
    const paper = this.config.paper;
    this.vt = new VirtualTime(o.startMs);
    const fees: ContractOverride = { makerFeeRate: paper.makerFee, takerFeeRate: paper.takerFee };
    const named = new Set<string>([
      ...new ContractTable().namedSymbols(),
      ...o.symbols,
      ...Object.keys(o.contracts ?? {}),
    ]);
    const overrides: Record<string, ContractOverride> = {};
    for (const sym of named) overrides[sym] = { ...fees, ...o.contracts?.[sym] };
    const contracts = new ContractTable(overrides, fees);
    this.sim = new SimPort({
      clock: this.vt.clock,
      contracts,
      fillModel: paper.fillModel,
      slippageBps: dec(paper.slippageBps),
      ...(paper.liquidityCap !== undefined ? { liquidityPerSnapshot: dec(paper.liquidityCap) } : {}),
      ...(o.faults !== undefined ? { faults: o.faults } : {}),
      ...(o.simLimits !== undefined ? { limits: o.simLimits } : {}),
      seed: o.seed ?? 1,
      retentionMs: simRetentionMs(this.config.polling, o.faults),
    });
    this.specs = new Map([...named].sort().map((sym) => [symbolId(sym), contracts.spec(sym)]));
    this.store = new MemoryStore();
    this.prefix = this.config.orders.clientOidPrefix;
    this.startingEquity = dec(paper.startingBalance);
    const deferred =
      o.skipIdleRounds === false || this.#quietPolls === false || o.fastForward === false
        ? undefined
        : new DeferredReads(this.#deferralSpanMs(), () => this.#deferralRoom());
    const session = createSession({
      port: this.sim,
      store: this.store,
      clock: this.vt.clock,
      scheduler: this.vt.scheduler,
      timers: this.vt.timers,
      log,
      specs: this.specs,
      strategies: o.strategies,
      engine: engineOptions(this.config),
      reconcile: reconcilerConfig(this.config.polling),
      ...(o.skipIdleRounds === false
        ? {}
        : {
            venueShortcut: {
              ...(deferred !== undefined
                ? {
                    takeDeferred: () => deferred.take(),
                    sleepRoom: () => deferred.roomForRounds(this.vt.now()),
                    bulk: { spanMs: this.#deferralSpanMs(), charge: (b: BulkCharges) => this.#chargeBulk(b) },
                  }
                : {}),
              venueVersion: (loop) => this.sim.stateVersion(loop === 'plans' ? 'plans' : 'orders'),
              chargeUnsent: (eps: readonly EndpointId[], at?: number) => this.sim.chargeUnsent(eps, at),
              chargeUnsentRounds: (rounds: readonly UnsentReads[]) => this.sim.chargeUnsentRounds(rounds),
              quiet: () => this.sim.quiet(),
            },
          }),
      onRound: (r) => {
        for (const e of r.output.events) this.events.push(e);
      },
    });
    this.engine = session.engine;
    this.reconciler = session.reconciler;
    this.#watched = new Set(session.symbols);
    this.#deferred = deferred;
    this.engine.events$.subscribe((e) => this.events.push(e));
    this.engine.start();
    this.reconciler.start();
  }

  /**
   * Every long-lived collection of the session, by part (core/footprint.ts): `session.*` its own
   * (`events` grows until its caller empties it, as runBacktest does after each poll; the deferred
   * reads, charged by DEFER_PASS; the scheduler's timers), then `engine.*`, `reconciler.*`, `store.*`
   * and `sim.*`.
   */
  footprint(): Footprint {
    return combineFootprints({
      session: {
        events: this.events.length,
        deferred: this.#deferred?.size ?? 0,
        timers: this.vt.scheduler.actions.length,
      },
      engine: this.engine.footprint(),
      reconciler: this.reconciler.footprint(),
      store: this.store.footprint(),
      sim: this.sim.footprint(),
    });
  }

  /** The longest window a weight pool is counted over (the budget's, with its guard, or the venue's). */
  #deferralSpanMs(): number {
    return Math.max(
      this.config.budget.windowMs + DEFAULT_BUDGET_CONFIG.guardMs,
      this.sim.venue.limiter.limits.windowMs,
    );
  }

  /** The room DeferredReads counts on, read after a charge (see there). */
  #deferralRoom(): DeferralRoom {
    const { limit, steady } = this.#limitsNow(this.engine.executor.budgetUsage());
    return {
      limit,
      steady,
      window: this.engine.executor.budgetWindow(),
      rounds: this.reconciler.skippedWeightBound(this.#deferralSpanMs()),
    };
  }

  /** The tighter of the budget's limits now and the simulator's, and whether the budget is steady. */
  #limitsNow(u: BudgetUsage): Pick<DeferralRoom, 'limit' | 'steady'> {
    const venue = this.sim.venue.limiter.limits;
    return {
      limit: {
        ip: Math.min(u.ip.limit, venue.ipWeightPerWindow),
        uid: Math.min(u.uid.limit, venue.uidWeightPerWindow),
      },
      steady: u.factor >= 1 && u.backoffMs === 0 && this.sim.faultFree,
    };
  }

  /**
   * Takes a pass of charges in bulk (RoundShortcut.bulk) when no window can have refused any of them:
   * what the windows hold now + the rounds' most per window + the deferred reads' most per window
   * fits every pool. False (the pass is then charged one by one) otherwise.
   */
  #chargeBulk(b: BulkCharges): boolean {
    const u = this.engine.executor.budgetUsage();
    const { limit, steady } = this.#limitsNow(u);
    const tickers = ENDPOINTS.tickers;
    if (
      !steady ||
      u.ip.used + b.roundsBound.ip + b.deferredPerSpan * tickers.ipWeight > limit.ip ||
      u.uid.used + b.roundsBound.uid + b.deferredPerSpan * tickers.uidWeight > limit.uid
    ) {
      return false;
    }
    if (!this.engine.executor.unsent.chargeBulk(b)) return false;
    this.sim.chargeBulk(b);
    return true;
  }

  /** Requests sent so far, all endpoints (a cheap progress counter). */
  #requests(): number {
    return this.engine.executor.requestTotal() + this.reconciler.rounds;
  }

  /**
   * Waits until nothing can happen without time passing: the engine is idle and reconciliation is
   * either idle or waiting for weight budget (or a retry delay). Rethrows an engine failure.
   *
   * A round between two reads holds no executor work: it is running on promise callbacks, however
   * many turns that takes, so it is waited for (time passing meanwhile would make the round end, and
   * its next one start, later than it would live).
   */
  async settle(): Promise<void> {
    if (this.#settledNow()) return;
    const x = this.engine.executor;
    for (let i = 0; i < 10_000; i++) {
      await this.engine.idle();
      if (!this.reconciler.busy) return;
      const before = this.#requests();
      await microtasks(16);
      await this.engine.idle();
      if (!this.reconciler.busy) return;
      if (this.#requests() === before && x.isQuiescent() && !x.isEmpty()) return;
    }
  }

  /** Runs `read` through the executor's read lane, letting virtual time pass while it waits for budget. */
  async #budgeted<T>(promise: Promise<T>): Promise<T> {
    let done = false;
    const watched = promise.finally(() => {
      done = true;
    });
    for (let i = 0; i < 100_000 && !done; i++) {
      await this.settle();
      if (done) break;
      const due = this.vt.nextDue();
      if (due === undefined) break;
      await this.vt.advanceTo(due, () => this.settle());
    }
    return watched;
  }

  /** Replays one poll at its time `t` (time never moves backwards). */
  feed(poll: RecordedPoll): Promise<void> {
    return this.feedNow(poll) ?? Promise.resolve();
  }

  /**
   * `feed` without a promise where it can: a quiet poll (settled session, no timer due by its time)
   * is replayed synchronously, and undefined is returned when the session is settled after it.
   * Otherwise the returned promise must be awaited before the next poll.
   */
  feedNow(poll: RecordedPoll): Promise<void> | undefined {
    if (!(this.#quietPolls && this.#settledNow() && this.vt.jumpTo(poll.t))) return this.#feedTimed(poll);
    this.sim.applyPoll(poll);
    return this.#tickWith(poll, this.#quietRead(poll.t));
  }

  async #feedTimed(poll: RecordedPoll): Promise<void> {
    await this.vt.advanceTo(poll.t, () => this.settle());
    this.sim.applyPoll(poll);
    // Settled once the timers due by the poll have run, no timer is due by its time: the session is
    // where a quiet poll's jump would have left it, and the read is charged as a quiet poll's is
    // (#quietRead), without the read lane's promise and queue. (Charged at once here, it woke the
    // sleeping loops at the poll after every order: a third of the backtest's bulk charges.)
    await this.#tickWith(poll, this.#quietPolls && this.#settledNow() ? this.#quietRead(poll.t) : undefined);
  }

  /**
   * The tickers of a quiet poll at `t` (settled session, no timer due by `t`): its read deferred
   * where it can be (#deferRead), else charged at once (#readUnsent); undefined when neither could.
   */
  #quietRead(t: number): readonly Ticker[] | undefined {
    return this.#deferRead(t) ? this.sim.tickersUnsent(this.#watched) : this.#readUnsent();
  }

  /**
   * The engine's tick with tickers read unsent; undefined tickers (they could not be charged unsent)
   * are read through the executor's read lane first. Undefined when the session is settled after it.
   */
  #tickWith(poll: RecordedPoll, tickers: readonly Ticker[] | undefined): Promise<void> | undefined {
    if (tickers === undefined) return this.#readAndTick(poll);
    this.#tick(poll, tickers);
    return this.#settledNow() ? undefined : this.settle();
  }

  async #readAndTick(poll: RecordedPoll): Promise<void> {
    this.#tick(poll, await this.#readTickers());
    if (!this.#settledNow()) await this.settle();
  }

  /**
   * Defers this quiet poll's tickers read (DeferredReads) when the wake the read would bring could
   * only charge: the venue is quiet and did not change since the sleeping loops fell asleep (a
   * resting order that filled with the poll must wake them now, as the read would), and no weight
   * window can refuse the read. (Not "since the last read": after an order, the loops run their
   * real rounds and sleep again before the next poll, which then defers as any quiet poll does.)
   */
  #deferRead(t: number): boolean {
    const d = this.#deferred;
    if (d === undefined) return false;
    if (!this.sim.quiet()) return false;
    const version = this.sim.stateVersion();
    if (version !== this.#versionSeen) {
      if (!this.reconciler.asleepOnCurrentVenue()) return false;
      this.#versionSeen = version;
    }
    if (!d.tryDefer(t)) return false;
    // Charged in passes of DEFER_PASS: what waits stays bounded (memory stays flat).
    if (d.size >= DEFER_PASS) this.reconciler.wake();
    return true;
  }

  /** The tickers read through the executor's read lane (weight budget, then the simulator). */
  #readTickers(): Promise<readonly Ticker[]> {
    return this.#budgeted(this.engine.executor.read('tickers', () => this.sim.tickers(this.#watched)));
  }

  /**
   * The quiet poll's read, without a promise: the session is settled and no timer fell due by now, so
   * the read would be sent at once. Its weight and count are charged as `chargeUnsent` charges a
   * skipped round, after the rounds of sleeping loops due by now (as the read's arrival at the
   * executor would charge them), and the tickers come from the simulator as the reply would carry
   * them. Undefined when the budget or the simulator refuses: the read then goes through the lane.
   */
  #readUnsent(): readonly Ticker[] | undefined {
    this.reconciler.wake();
    this.#versionSeen = this.sim.stateVersion();
    const charged = this.engine.executor.unsent.charge(['tickers'], () => this.sim.chargeUnsent(['tickers']));
    return charged ? this.sim.tickersUnsent(this.#watched) : undefined;
  }

  #tick(poll: RecordedPoll, tickers: readonly Ticker[]): void {
    this.engine.onTick(tickers);
    this.polls++;
    this.firstPollT ??= poll.t;
    this.lastPollT = poll.t;
  }

  /** Nothing is running or queued anywhere: `settle()` would return at once. */
  #settledNow(): boolean {
    return !this.reconciler.busy && this.engine.idleNow();
  }

  /** Lets `ms` of virtual time pass with no new market data (orders in flight settle, fills arrive). */
  async idleFor(ms: number): Promise<void> {
    const end = this.vt.now() + ms;
    await this.vt.advanceTo(end, () => this.settle());
    // Rounds of sleeping reconciliation loops that fell due meanwhile (RoundShortcut.quiet).
    this.reconciler.wake();
    await this.settle();
  }

  /** Stops the pollers and the engine and closes the store. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.reconciler.stop();
    this.engine.stop();
    this.engine.executor.stop();
    this.store.close();
  }
}
