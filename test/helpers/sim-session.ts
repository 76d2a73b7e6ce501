// A trading session (engine + reconciliation pollers) against the in-process simulator, on virtual
// time, with a SQLite store on disk — and the means to crash it and start a new incarnation on the
// same store, as a restarted process would.
//
// A crash is modelled as the process vanishing: from that instant the old incarnation's requests never
// reach the simulator (and replies to requests already processed are never seen), and its store writes
// are lost. The next incarnation opens the store file afresh and recovers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { Dec } from '../../src/core/decimal.ts';
import { dec } from '../../src/core/decimal.ts';
import type { ClientOid, OrderId, StrategyId, TradeId } from '../../src/core/ids.ts';
import { strategyId } from '../../src/core/ids.ts';
import type { Intent } from '../../src/core/intents.ts';
import type { Ticker } from '../../src/core/market.ts';
import type { Order } from '../../src/core/orders.ts';
import type { PlanReport } from '../../src/core/reports.ts';
import type { EngineOptions } from '../../src/engine/engine.ts';
import { microtasks, VirtualTime } from '../../src/engine/virtual-time.ts';
import type { ExchangePort } from '../../src/exchange/port.ts';
import type { FaultProfile } from '../../src/exchange/sim/faults.ts';
import { SimPort } from '../../src/exchange/sim/sim-port.ts';
import type { ReconcilerConfig } from '../../src/reconcile/pollers.ts';
import { recover, type RecoveryReport } from '../../src/runner/recovery.ts';
import { createSession, type Session } from '../../src/runner/session.ts';
import type { JournalEntry, OrderStore, StoredFill, StoredPlanOrder } from '../../src/store/port.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { defineStrategy } from '../../src/strategy/define.ts';
import type { StrategyContext, StrategyFill } from '../../src/strategy/types.ts';
import { silentLog } from './executor-harness.ts';
import { BTC, makeTicker } from './market.ts';

export const STRATEGY: StrategyId = strategyId('mt');

/** What the test wants the strategy to do at its next ticker. */
export type Wish = (ctx: StrategyContext, ticker: Ticker) => Intent | readonly Intent[];

export class StrategyControl {
  wishes: Wish[] = [];
  readonly fills: StrategyFill[] = [];
  readonly updates: Order[] = [];
}

export function testReconcilerConfig(over: Partial<ReconcilerConfig> = {}): ReconcilerConfig {
  const intervals = (ms: number) => ({ fastMs: ms, normalMs: ms, idleMs: ms * 3, idleAfterMs: 60_000 });
  return {
    graceMs: 20_000,
    recentMs: 15 * 60_000,
    fills: {
      intervals: intervals(1_000),
      paging: { overlapMs: 30_000, initialLookbackMs: 3_600_000, maxPages: 10, limit: 100 },
    },
    history: {
      intervals: intervals(2_000),
      window: { pageSize: 100, lookbackMs: 5 * 60_000, skewMs: 5_000 },
    },
    ...over,
  };
}

/** Plan-order polling for tests: every `intervalMs`, one-hour windows, an hour back at first. */
export function testPlanPolling(intervalMs: number): NonNullable<ReconcilerConfig['plans']> {
  return {
    intervalMs,
    window: {
      overlapMs: 60_000,
      initialLookbackMs: 3_600_000,
      maxWindowMs: 3_600_000,
      maxWindows: 2,
      pageSize: 100,
      delegateTypes: [],
    },
  };
}

/** The port of one incarnation: dead after a crash (nothing reaches the venue, nothing comes back). */
class MortalPort implements ExchangePort {
  alive = true;
  readonly #inner: ExchangePort;

  constructor(inner: ExchangePort) {
    this.#inner = inner;
  }

  #call<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.alive) return new Promise<T>(() => undefined);
    return fn().then(
      (v) => (this.alive ? v : new Promise<T>(() => undefined)),
      (e: unknown) =>
        this.alive
          ? Promise.reject(e instanceof Error ? e : new Error(String(e)))
          : new Promise<T>(() => undefined),
    );
  }

  serverTime = () => this.#call(() => this.#inner.serverTime());
  contracts = () => this.#call(() => this.#inner.contracts());
  tickers = () => this.#call(() => this.#inner.tickers());
  placeOrder: ExchangePort['placeOrder'] = (s, e) => this.#call(() => this.#inner.placeOrder(s, e));
  placeBatch: ExchangePort['placeBatch'] = (s, e) => this.#call(() => this.#inner.placeBatch(s, e));
  cancelOrder: ExchangePort['cancelOrder'] = (r) => this.#call(() => this.#inner.cancelOrder(r));
  fills: ExchangePort['fills'] = (q) => this.#call(() => this.#inner.fills(q));
  history: ExchangePort['history'] = (q) => this.#call(() => this.#inner.history(q));
  planHistory: ExchangePort['planHistory'] = (q) => this.#call(() => this.#inner.planHistory(q));
  placePlan: ExchangePort['placePlan'] = (s, e) => this.#call(() => this.#inner.placePlan(s, e));
  cancelPlan: ExchangePort['cancelPlan'] = (r) => this.#call(() => this.#inner.cancelPlan(r));
  currentPlans: ExchangePort['currentPlans'] = (q) => this.#call(() => this.#inner.currentPlans(q));
}

/** The store of one incarnation: after a crash its writes are lost (reads still answer, for the dead). */
class MortalStore implements OrderStore {
  alive = true;
  readonly inner: SqliteStore;

  constructor(inner: SqliteStore) {
    this.inner = inner;
  }

  nextSequence(s: StrategyId): number {
    return this.alive ? this.inner.nextSequence(s) : 0;
  }
  insertOrder(o: Order): void {
    if (this.alive) this.inner.insertOrder(o);
  }
  updateOrder(o: Order): void {
    if (this.alive) this.inner.updateOrder(o);
  }
  getOrder(oid: ClientOid): Order | undefined {
    return this.inner.getOrder(oid);
  }
  getOrderByOrderId(id: OrderId): Order | undefined {
    return this.inner.getOrderByOrderId(id);
  }
  openOrders(): readonly Order[] {
    return this.inner.openOrders();
  }
  allOrders(): readonly Order[] {
    return this.inner.allOrders();
  }
  recordFill(f: StoredFill): boolean {
    return this.alive ? this.inner.recordFill(f) : false;
  }
  hasFill(id: TradeId): boolean {
    return this.inner.hasFill(id);
  }
  allFills(): readonly StoredFill[] {
    return this.inner.allFills();
  }
  appendJournal(e: JournalEntry): void {
    if (this.alive) this.inner.appendJournal(e);
  }
  getMeta(k: string): string | undefined {
    return this.inner.getMeta(k);
  }
  setMeta(k: string, v: string): void {
    if (this.alive) this.inner.setMeta(k, v);
  }
  deleteMeta(k: string): void {
    if (this.alive) this.inner.deleteMeta(k);
  }
  bumpSequence(s: StrategyId, n: number): void {
    if (this.alive) this.inner.bumpSequence(s, n);
  }
  ordersUpdatedSince(since: number): readonly Order[] {
    return this.inner.ordersUpdatedSince(since);
  }
  unattributedFills(since?: number): readonly StoredFill[] {
    return this.inner.unattributedFills(since);
  }
  attributeFill(id: TradeId, oid: ClientOid): boolean {
    return this.alive ? this.inner.attributeFill(id, oid) : false;
  }
  fillsForOrder(id: OrderId): readonly StoredFill[] {
    return this.inner.fillsForOrder(id);
  }
  recordPlanOrder(p: PlanReport, seenAt: number): void {
    if (this.alive) this.inner.recordPlanOrder(p, seenAt);
  }
  planOrders(): readonly StoredPlanOrder[] {
    return this.inner.planOrders();
  }
  planOrderStatus(id: string): PlanReport['status'] | undefined {
    return this.inner.planOrderStatus(id);
  }
  transaction<T>(fn: () => T): T {
    return this.alive ? this.inner.transaction(fn) : fn();
  }
  close(): void {
    // The file is closed when the test ends (a dead process's handle just goes away).
  }
}

export interface SimSessionOptions {
  readonly faults?: FaultProfile;
  readonly seed?: number;
  readonly reconcile?: ReconcilerConfig;
  readonly engine?: EngineOptions;
  readonly start?: number;
  readonly startPrice?: string;
  /** Wraps the simulator's port (e.g. to answer plan history). */
  readonly wrapPort?: (p: ExchangePort) => ExchangePort;
  readonly cancelOnStart?: boolean;
  /** How long the simulator keeps a canceled order `canceling` (it may fill meanwhile). Default 0. */
  readonly cancelDelayMs?: number;
}

export class SimSession {
  readonly vt: VirtualTime;
  readonly sim: SimPort;
  readonly control = new StrategyControl();
  readonly dir: string;
  readonly path: string;
  readonly #opts: SimSessionOptions;
  readonly #stores: SqliteStore[] = [];
  #port!: MortalPort;
  #store!: MortalStore;
  session!: Session;
  price: Dec;
  incarnations = 0;
  lastRecovery: RecoveryReport | undefined;
  cancelOnStart: boolean;
  /** The current incarnation has crashed (nothing of it may be awaited). */
  dead = false;
  #died: Promise<void> = Promise.resolve();
  #die: () => void = () => undefined;

  constructor(opts: SimSessionOptions = {}) {
    this.#opts = opts;
    this.cancelOnStart = opts.cancelOnStart ?? false;
    this.vt = new VirtualTime(opts.start ?? 1_700_000_000_000);
    this.sim = new SimPort({
      clock: this.vt.clock,
      seed: opts.seed ?? 7,
      ...(opts.faults !== undefined ? { faults: opts.faults } : {}),
      ...(opts.cancelDelayMs !== undefined ? { cancelDelayMs: opts.cancelDelayMs } : {}),
    });
    this.price = dec(opts.startPrice ?? '60000');
    this.sim.applyTickers(this.vt.now(), [this.ticker().wire]);
    this.dir = mkdtempSync(join(tmpdir(), 'capibot-session-'));
    this.path = join(this.dir, 'store.sqlite');
  }

  get store(): SqliteStore {
    return this.#store.inner;
  }

  get engine() {
    return this.session.engine;
  }

  get reconciler() {
    return this.session.reconciler;
  }

  ticker(): Ticker {
    return makeTicker(BTC, this.price.toFixed(1), this.vt.now());
  }

  /** Starts a new incarnation on the store file: engine, recovery, strategies, pollers. */
  async boot(): Promise<RecoveryReport> {
    // NORMAL: a crash here is a process crash (what the store survives with FULL or NORMAL alike).
    const store = new SqliteStore({ path: this.path, lease: false, synchronous: 'NORMAL' });
    this.#stores.push(store);
    this.#store = new MortalStore(store);
    const inner = this.#opts.wrapPort?.(this.sim) ?? this.sim;
    this.#port = new MortalPort(inner);
    this.dead = false;
    this.#died = new Promise<void>((resolve) => {
      this.#die = resolve;
    });
    const control = this.control;
    const definition = defineStrategy({
      name: 'model-test',
      version: '0',
      params: z.object({}),
      symbols: () => [BTC],
      create: (ctx) => ({
        onTicker: (t) => {
          const wishes = control.wishes;
          control.wishes = [];
          return wishes.flatMap((w) => {
            const r = w(ctx, t);
            return Array.isArray(r) ? (r as Intent[]) : [r as Intent];
          });
        },
        onFill: (f) => {
          control.fills.push(f);
        },
        onOrderUpdate: (o) => {
          control.updates.push(o);
        },
      }),
    });
    // The venue's rules, read without a request (requests may meet injected faults).
    const specs = new Map([[BTC, this.sim.core.contracts.spec(BTC)]]);
    this.session = createSession({
      port: this.#port,
      store: this.#store,
      clock: this.vt.clock,
      scheduler: this.vt.scheduler,
      timers: this.vt.timers,
      log: silentLog,
      specs,
      strategies: [{ id: STRATEGY, definition }],
      engine: { clientOidPrefix: 'cb', ...this.#opts.engine },
      reconcile: this.#opts.reconcile ?? testReconcilerConfig(),
    });
    this.incarnations++;
    const recovery = recover({
      engine: this.session.engine,
      reconciler: this.session.reconciler,
      store: this.#store,
      clock: this.vt.clock,
      timers: this.vt.timers,
      log: silentLog,
      cancelOnStart: this.cancelOnStart,
      retryDelayMs: 500,
      attempts: 20,
    });
    const report = await this.#drive(recovery);
    this.lastRecovery = report;
    this.session.engine.start();
    this.session.reconciler.start();
    await this.settle();
    return report;
  }

  /** The process vanishes: no request reaches the venue any more, no write reaches the store. */
  crash(): void {
    this.dead = true;
    this.#die();
    this.#port.alive = false;
    this.#store.alive = false;
    this.session.reconciler.stop();
    this.session.engine.stop();
  }

  /** Lets promise chains and the executor run, without moving time. */
  async settle(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (this.dead) return microtasks(8);
      // A crash may strike while waiting (inside a request): a dead engine never becomes idle.
      await Promise.race([this.session.engine.idle().catch(() => undefined), this.#died]);
      await microtasks(8);
      if (this.session.engine.executor.isQuiescent()) return;
    }
  }

  /** Runs `p` while moving virtual time forward whenever everything waits on a timer. */
  async #drive<T>(p: Promise<T>): Promise<T> {
    let done = false;
    let value: T | undefined;
    let error: unknown;
    let failed = false;
    p.then(
      (v) => {
        done = true;
        value = v;
      },
      (e: unknown) => {
        done = true;
        failed = true;
        error = e;
      },
    );
    for (let i = 0; i < 10_000 && !done; i++) {
      await microtasks(8);
      if (done) break;
      if (!this.dead && !this.session.engine.executor.isQuiescent()) continue;
      const due = this.vt.nextDue();
      if (due === undefined) continue;
      await this.vt.advanceTo(due, () => microtasks(8));
    }
    if (!done) throw new Error('the operation did not finish');
    if (failed) throw error instanceof Error ? error : new Error(String(error));
    return value as T;
  }

  /** Awaits a promise that may need time to pass (reads parked on budget or retry timers). */
  drive<T>(p: Promise<T>): Promise<T> {
    return this.#drive(p);
  }

  /** Moves the market (the simulator matches resting orders) and shows the ticker to the engine. */
  async tick(move: string = '0', dtMs = 500): Promise<void> {
    await this.advance(dtMs);
    this.price = this.price.plus(move);
    const t = this.ticker();
    this.sim.applyTickers(this.vt.now(), [t.wire]);
    this.session.engine.onTick([t]);
    await this.settle();
  }

  /** Moves virtual time, firing every timer due (pollers, retries) and settling after each. */
  async advance(ms: number): Promise<void> {
    const end = this.vt.now() + ms;
    await this.vt.advanceTo(end, async () => {
      await microtasks(8);
      await this.settle();
    });
  }

  close(): void {
    try {
      this.session?.reconciler.stop();
      this.session?.engine.stop();
    } catch {
      // ignore
    }
    for (const s of this.#stores) s.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export type { Dec };
