// The executor's placement path: staging until the end of the tick (or `coalesce` ms), planning each call from the whole pool as it may leave, write-ahead OrderSubmitted for every entry before its request leaves, per-entry answers; a placement whose outcome is unknown is NEVER resent, one refused by a 429 goes back to the pool.
import type { Clock } from '../core/clock.ts';
import { InvariantViolation } from '../core/errors.ts';
import type { Footprint } from '../core/footprint.ts';
import type { OrderEvent } from '../core/events.ts';
import type { ClientOid } from '../core/ids.ts';
import { mapToObjects } from '../core/object-lists.ts';
import type { PlaceOutcome } from '../core/reports.ts';
import type { PlanEntry } from '../exchange/port.ts';
import type { Dispatcher } from './dispatcher.ts';
import type { Prepared } from './jobs.ts';
import type { ExecutorOptions, ExecutorPort, PlacementRequest } from './executor-types.ts';
import { placementEvents, type FailureDisposition } from './outcomes.ts';
import { PlacementPool, type PooledPlacement } from './placement-pool.ts';
import type { PlannedCall } from './planner.ts';
import type { RequestLedger } from './request-ledger.ts';
import type { CancelTimer, Timers } from './timers.ts';

export interface PlacementsDeps {
  readonly port: ExecutorPort;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly emit: (event: OrderEvent) => void;
  readonly atomically: (fn: () => void) => void;
  readonly opts: ExecutorOptions;
  readonly ledger: RequestLedger;
  readonly dispatcher: Dispatcher;
}

export class Placements {
  readonly #port: ExecutorPort;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #emit: (event: OrderEvent) => void;
  readonly #atomically: (fn: () => void) => void;
  readonly #opts: ExecutorOptions;
  readonly #ledger: RequestLedger;
  readonly #dispatcher: Dispatcher;
  readonly #pool = new PlacementPool();
  #placeJobQueued = false;
  #flushTimer: CancelTimer | undefined;
  /** The end of a tick came while an answer was being applied: flush once it is applied in full. */
  #flushPending = false;

  constructor(deps: PlacementsDeps) {
    this.#port = deps.port;
    this.#clock = deps.clock;
    this.#timers = deps.timers;
    this.#emit = deps.emit;
    this.#atomically = deps.atomically;
    this.#opts = deps.opts;
    this.#ledger = deps.ledger;
    this.#dispatcher = deps.dispatcher;
  }

  /** Placements waiting for the end of the tick / coalescing window. */
  get staged(): number {
    return this.#pool.staged;
  }

  /** Placements eligible and waiting for budget. */
  get eligible(): number {
    return this.#pool.eligible;
  }

  /** The pool's placements (footprint.ts). */
  footprint(): Footprint {
    return this.#pool.footprint();
  }

  /** Stages a placement (rejected locally, `NOT_SENT`, once the executor is stopped). */
  submit(p: PlacementRequest): void {
    if (this.#dispatcher.stopped) {
      this.#rejectLocally([this.#pooled(p)], 'NOT_SENT', 'the executor is stopped');
      return;
    }
    this.#pool.stage(this.#pooled(p));
    if (this.#opts.coalesce !== 'tick' && this.#flushTimer === undefined) {
      this.#flushTimer = this.#timers.after(this.#opts.coalesce, () => {
        this.#flushTimer = undefined;
        this.flush();
      });
    }
  }

  endOfTick(): void {
    if (this.#opts.coalesce !== 'tick') return;
    if (this.#dispatcher.holding) this.#flushPending = true;
    else this.flush();
  }

  /** An answer is applied in full: a flush the end of a tick asked for meanwhile happens now. */
  applied(): void {
    if (this.#flushPending) this.flush();
  }

  withdraw(clientOid: ClientOid): boolean {
    return this.#pool.withdraw(clientOid);
  }

  /** Staged placements become eligible. */
  flush(): void {
    this.#flushPending = false;
    if (this.#pool.release()) this.#schedule();
  }

  /** The most urgent call from the pool (planner.ts), or undefined when none is left. */
  prepare(): Prepared | undefined {
    const { call, superseded } = this.#pool.next({
      maxBatch: this.#opts.maxBatch,
      supersede: this.#opts.supersede,
    });
    if (superseded.length > 0) {
      this.#ledger.superseded += superseded.length;
      this.#rejectLocally(superseded, 'SUPERSEDED', 'superseded by a newer placement before it was sent');
    }
    if (call === undefined) {
      this.#placeJobQueued = false;
      return undefined;
    }
    return {
      endpoint: call.kind === 'batch' ? 'batchOrders' : call.kind === 'plan' ? 'planOrder' : 'placeOrder',
      launch: () => this.#launch(call),
    };
  }

  /** The executor stopped: nothing more leaves; what never left is rejected locally unless `silent`. */
  stop(silent: boolean): void {
    this.#flushTimer?.();
    this.#flushTimer = undefined;
    this.#placeJobQueued = false;
    const unsent = this.#pool.clear();
    if (!silent) this.#rejectLocally(unsent, 'NOT_SENT', 'never sent: the executor stopped');
  }

  #pooled(p: PlacementRequest): PooledPlacement {
    return {
      symbol: p.symbol,
      clientOid: p.entry.clientOid,
      strategy: p.strategy,
      ...(p.tag !== undefined ? { tag: p.tag } : {}),
      ...(p.triggerPrice !== undefined ? { triggerPrice: p.triggerPrice } : {}),
      priority: p.priority ?? 0,
      enqueuedAt: this.#clock.now(),
      entry: p.entry,
      submitted: false,
      attempts: 0,
    };
  }

  #schedule(): void {
    if (this.#placeJobQueued || this.#pool.eligible === 0 || this.#dispatcher.stopped) return;
    this.#placeJobQueued = true;
    this.#dispatcher.enqueue({ kind: 'place' });
  }

  #launch(call: PlannedCall<PooledPlacement>): void {
    const entries = this.#pool.take(call);
    this.#placeJobQueued = false;
    // Write-ahead: `submitted` is committed for every entry before the request leaves, in one commit.
    const at = this.#clock.now();
    this.#atomically(() => {
      for (const e of entries) {
        if (e.submitted) continue;
        this.#emit({ kind: 'OrderSubmitted', clientOid: e.clientOid, at });
      }
    });
    for (const e of entries) e.submitted = true;
    if (call.kind === 'batch') {
      this.#ledger.batchCalls++;
      this.#ledger.batchEntries += entries.length;
    } else {
      this.#ledger.singleCalls++;
    }
    const request = this.#request(call);
    this.#dispatcher.track(request, {
      ok: (outcomes) => {
        const events = placementEvents(
          mapToObjects(entries, (e) => e.clientOid),
          outcomes,
          this.#clock.now(),
        );
        for (const ev of events) {
          if (ev.kind === 'OrderOutcomeUnknown') this.#ledger.outcomeUnknown++;
          this.#emit(ev);
        }
      },
      failed: (f) => this.#failed(entries, f),
    });
    this.#schedule();
  }

  /** The call's request: batchOrders, placeOrder, or plan_order (a plan's price is its execution price). */
  #request(call: PlannedCall<PooledPlacement>): () => Promise<readonly PlaceOutcome[]> {
    switch (call.kind) {
      case 'batch':
        return () =>
          this.#port.placeBatch(
            call.symbol,
            mapToObjects(call.entries, (e) => e.entry),
          );
      case 'single':
        return () =>
          this.#port.placeOrder(call.symbol, call.entry.entry).then((o): readonly PlaceOutcome[] => [o]);
      case 'plan': {
        const { entry, triggerPrice } = call.entry;
        if (triggerPrice === undefined) throw new InvariantViolation('a plan call without a trigger price');
        const plan: PlanEntry = {
          clientOid: entry.clientOid,
          side: entry.side,
          size: entry.size,
          triggerPrice,
          ...(entry.price !== undefined ? { executePrice: entry.price } : {}),
        };
        return () => this.#port.placePlan(call.symbol, plan).then((o): readonly PlaceOutcome[] => [o]);
      }
    }
  }

  #failed(entries: readonly PooledPlacement[], f: FailureDisposition): void {
    const at = this.#clock.now();
    switch (f.kind) {
      case 'rateLimited':
        // Refused before anything happened: back to the pool, in front (they were the most urgent).
        this.#pool.putBack(entries);
        this.#schedule();
        return;
      case 'notSent': {
        const retry = entries.filter((e) => ++e.attempts < this.#opts.maxAttempts);
        const give = entries.filter((e) => e.attempts >= this.#opts.maxAttempts);
        for (const e of give)
          this.#emit({
            kind: 'OrderRejected',
            clientOid: e.clientOid,
            at,
            code: 'TRANSPORT',
            reason: f.message,
          });
        if (retry.length > 0) {
          this.#dispatcher.later(() => {
            this.#pool.putBack(retry);
            this.#schedule();
          });
        }
        return;
      }
      case 'refused':
        for (const e of entries)
          this.#emit({ kind: 'OrderRejected', clientOid: e.clientOid, at, code: f.code, reason: f.message });
        return;
      case 'unknown':
        // Never resent: reconciliation settles each entry by client_oid.
        for (const e of entries) {
          this.#ledger.outcomeUnknown++;
          this.#emit({ kind: 'OrderOutcomeUnknown', clientOid: e.clientOid, at, reason: f.message });
        }
        return;
    }
  }

  #rejectLocally(list: readonly PooledPlacement[], code: string, reason: string): void {
    const at = this.#clock.now();
    for (const p of list) this.#emit({ kind: 'OrderRejected', clientOid: p.clientOid, at, code, reason });
  }
}
