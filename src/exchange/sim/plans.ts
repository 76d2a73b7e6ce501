// Plan (trigger) orders of the simulator: they rest untriggered at the venue, fire when the watched
// price crosses their trigger, and then become a regular order of the matching core (the "child"),
// which fills, rests or is refused like any other order.
//
// Behaviour (WEEX documents none of the linking; these are the simulator's choices, README
// "Simulator" and docs/simulator.md):
// - Direction: decided by the watched price at placement. A trigger at or above it fires when the
//   price rises to it (price ≥ trigger); a trigger below it fires when the price falls to it
//   (price ≤ trigger). With no price yet for the symbol, the first price seen decides.
// - Watched price: the ticker's `last`, or its `markPrice` for a plan watching the mark (the
//   simulator's `planTriggerSource`, or the body's undocumented `triggerPriceType`); a ticker without
//   a mark price falls back to `last`.
// - Checked once per market snapshot, after the resting orders of the snapshot matched: the child
//   arrives as an order placed right after the snapshot (a market child takes the opposite best).
// - The child: market (match_type 1) or limit at execute_price, order_type normal, a fresh order_id;
//   its client_oid is the plan's (`childClientOid: 'inherit'`, default: the engine links them by
//   client id) or `plan-<plan order_id>` (`'venue'`: a venue that does not echo it). A refused child
//   (a close larger than the closable position: the 40015 of placeOrder) leaves the plan `failed`.
// - Rows: the plan row carries its child's filled_qty, price_avg, fee, totalProfits and status.
// - Presets: an opening order with presetTakeProfitPrice / presetStopLossPrice makes, once it ends
//   with a fill, one market close plan per preset for the filled size, `presetLagMs` (default 2 s)
//   later (weex-facts.md §9: they appear in currentPlan a couple of seconds after the parent).
// - Untriggered plans expire `expiryMs` (90 days) after creation; cancels of unknown or finished
//   plans answer 50005 as cancel_order does for a finished order.
// - Retention (as ./retention.ts for fills): finished plans are forgotten `retentionMs` after they
//   finished (SimPort: one hour of virtual time; `capibot sim`: never).
//
// Cost: nothing per snapshot while no plan is armed; otherwise the armed symbols of the snapshot
// only (an index by symbol), never a scan of every plan.
import type { Dec } from '../../core/decimal.ts';
import { surelyBelowNearest } from '../../core/float-screen.ts';
import { sumSizes, type Footprint } from '../../core/footprint.ts';
import { objectList } from '../../core/object-lists.ts';
import { isOpening, type OrderSide } from '../../core/orders.ts';
import { SIM_COMPACT_MIN_DEAD } from './compaction.ts';
import type { PlaceResult } from './matching.ts';
import {
  isActive,
  type SimOrder,
  type SimOrderRequest,
  type SimPlan,
  type SimPlanRequest,
  type TriggerDirection,
  type TriggerSource,
} from './model.ts';
import { REJECT, type VenueReject } from './venue-errors.ts';

export const PLAN_EXPIRY_MS = 90 * 86_400_000;
export const DEFAULT_PRESET_LAG_MS = 2_000;

export interface PlanConfig {
  /** Untriggered plans expire this long after creation; default 90 days. */
  readonly planExpiryMs?: number;
  /** Delay between a preset order's end and its TP/SL plans; default 2000 ms. */
  readonly presetLagMs?: number;
  /** Price watched by plans that do not say; default `last`. */
  readonly planTriggerSource?: TriggerSource;
  /** The child's client_oid: the plan's (`inherit`, default) or `plan-<plan order_id>` (`venue`). */
  readonly childClientOid?: 'inherit' | 'venue';
}

/** What the plans need from the matching core. */
export interface PlanHost {
  readonly now: number;
  takeOrderId(): string;
  /** Size, price-tick and client_oid checks of a plan (the shape rules of placeOrder). */
  checkPlan(symbol: string, req: SimPlanRequest): VenueReject | undefined;
  /** Places a triggered plan's child at the core's time. */
  placeChild(symbol: string, req: SimOrderRequest): PlaceResult;
  /** The watched price in the symbol's latest snapshot. */
  price(symbol: string, source: TriggerSource): Dec | undefined;
  /**
   * The nearest double of what `price` would answer (the snapshot's own conversion of the same text,
   * without decoding it exactly), or NaN when only `price` can tell (no price, not positive).
   */
  priceNumber(symbol: string, source: TriggerSource): number;
  /** The symbols among `symbols` held by the latest snapshot, in its order. */
  inSnapshotOrder(symbols: Iterable<string>): string[];
}

export interface PlanSelector {
  readonly symbol?: string;
  readonly orderId?: string;
  readonly clientOid?: string;
}

export type PlanPlaceResult =
  { readonly ok: true; readonly plan: SimPlan } | { readonly ok: false; readonly reject: VenueReject };

interface Due {
  readonly at: number;
  readonly id: string;
}

/** A queue of due times that never decrease, read from its head. */
class DueQueue<T extends { readonly at: number }> {
  /** One hidden class, empty or full (core/object-lists.ts): slices and filters keep its kind. */
  #items = objectList<T>();
  #head = 0;

  push(item: T): void {
    this.#items.push(item);
  }

  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Takes the items due at or before `t`. */
  take(t: number): T[] {
    const out: T[] = [];
    while (this.#head < this.#items.length) {
      const x = this.#items[this.#head] as T;
      if (x.at > t) break;
      out.push(x);
      this.#head++;
    }
    if (this.#head >= SIM_COMPACT_MIN_DEAD && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return out;
  }

  nextAt(): number {
    return this.#items[this.#head]?.at ?? Number.POSITIVE_INFINITY;
  }

  /** Keeps only the waiting items `keep` accepts (in order): those that could no longer do anything. */
  retain(keep: (item: T) => boolean): void {
    this.#items = this.#items.slice(this.#head).filter(keep);
    this.#head = 0;
  }

  /** The backing array's length: the items waiting plus those taken since the last compaction. */
  get backing(): number {
    return this.#items.length;
  }
}

interface PresetDue {
  readonly at: number;
  readonly parent: SimOrder;
}

function newestFirst(a: SimPlan, b: SimPlan): number {
  return (
    b.createTime - a.createTime ||
    b.orderId.length - a.orderId.length ||
    (b.orderId < a.orderId ? -1 : b.orderId > a.orderId ? 1 : 0)
  );
}

function closeOf(side: OrderSide): OrderSide {
  return side === 'open_long' ? 'close_long' : 'close_short';
}

function fires(direction: TriggerDirection, price: Dec, trigger: Dec): boolean {
  return direction === 'rise' ? price.gte(trigger) : price.lte(trigger);
}

/**
 * True when `fires` is certain to say no, from the nearest doubles of the price and the trigger
 * (core/float-screen.ts): a resting stop is checked against every snapshot, and is almost never close.
 */
function surelyNotFiring(direction: TriggerDirection, price: number, trigger: number): boolean {
  return direction === 'rise' ? surelyBelowNearest(price, trigger) : surelyBelowNearest(trigger, price);
}

export class SimPlans {
  readonly #host: PlanHost;
  readonly #expiryMs: number;
  readonly #lagMs: number;
  readonly #source: TriggerSource;
  readonly #childOid: 'inherit' | 'venue';
  readonly #retentionMs: number;

  readonly #plans = new Map<string, SimPlan>();
  readonly #revisions = new Map<string, SimPlan[]>();
  readonly #byClientOid = new Map<string, string>();
  /** Per symbol: plan ids in creation order (forgotten ids are skipped, then dropped in batches). */
  readonly #bySymbol = new Map<string, string[]>();
  /** Per symbol: the untriggered plans (the only ones a snapshot looks at). */
  readonly #armed = new Map<string, Set<string>>();
  #armedCount = 0;
  /** `#armedSymbols()` until the armed plans change (asked at every snapshot while one is armed). */
  #armedList: readonly string[] | undefined;
  /** Child order id → plan id, while the child is active. */
  readonly #byChild = new Map<string, string>();
  readonly #expiries = new DueQueue<Due>();
  readonly #presets = new DueQueue<PresetDue>();
  readonly #finished = new DueQueue<Due>();
  #forgotten = 0;
  #version = 0;

  constructor(host: PlanHost, config: PlanConfig, retentionMs: number) {
    this.#host = host;
    this.#expiryMs = config.planExpiryMs ?? PLAN_EXPIRY_MS;
    this.#lagMs = config.presetLagMs ?? DEFAULT_PRESET_LAG_MS;
    this.#source = config.planTriggerSource ?? 'last';
    this.#childOid = config.childClientOid ?? 'inherit';
    this.#retentionMs = retentionMs;
  }

  /** Bumped by every stored plan revision (MatchingCore.version adds it). */
  get version(): number {
    return this.#version;
  }

  /** True while a preset plan waits for its lag: time alone will change the answers. */
  get hasTimedWork(): boolean {
    return this.#presets.size > 0;
  }

  get remembered(): number {
    return this.#plans.size;
  }

  /**
   * The plans remembered and their indexes; the due queues (expiries, preset lags, retention), with
   * their backing arrays (core/footprint.ts). Finished plans leave `retentionMs` after they finish.
   */
  footprint(): Footprint {
    return {
      plans: this.#plans.size,
      revisions: this.#revisions.size,
      byClientOid: this.#byClientOid.size,
      bySymbol: sumSizes(this.#bySymbol),
      armed: sumSizes(this.#armed),
      byChild: this.#byChild.size,
      expiries: this.#expiries.size,
      expiriesBacking: this.#expiries.backing,
      presets: this.#presets.size,
      presetsBacking: this.#presets.backing,
      finished: this.#finished.size,
      finishedBacking: this.#finished.backing,
    };
  }

  plan(orderId: string): SimPlan | undefined {
    return this.#plans.get(orderId);
  }

  hasClientOid(oid: string): boolean {
    return this.#byClientOid.has(oid);
  }

  /** Every plan remembered, oldest first (inspection API). */
  all(): readonly SimPlan[] {
    return [...this.#plans.values()];
  }

  // -------------------------------------------------------------------------------------------
  // Requests

  place(symbol: string, req: SimPlanRequest): PlanPlaceResult {
    const reject = this.#host.checkPlan(symbol, req);
    if (reject) return { ok: false, reject };
    const t = this.#host.now;
    const source = req.triggerSource ?? this.#source;
    const plan = this.#create(t, {
      orderId: this.#host.takeOrderId(),
      clientOid: req.clientOid,
      symbol,
      side: req.side,
      size: req.size,
      triggerPrice: req.triggerPrice,
      ...(req.executePrice !== undefined ? { executePrice: req.executePrice } : {}),
      triggerSource: source,
      marginMode: req.marginMode ?? 'SHARED',
      origin: 'plan',
    });
    return { ok: true, plan };
  }

  /** `orderId` wins when both ids are given. Unknown, forgotten or no longer untriggered: 50005. */
  cancel(sel: PlanSelector): PlanPlaceResult {
    const id =
      sel.orderId ?? (sel.clientOid !== undefined ? this.#byClientOid.get(sel.clientOid) : undefined);
    const p = id === undefined ? undefined : this.#plans.get(id);
    if (!p || p.status !== 'untriggered' || (sel.symbol !== undefined && sel.symbol !== p.symbol)) {
      return { ok: false, reject: REJECT.orderNotFound };
    }
    return { ok: true, plan: this.#end(p, 'canceled', this.#host.now, 'canceled by request') };
  }

  // -------------------------------------------------------------------------------------------
  // Time and market

  /** Runs what fell due by `t`: preset plans after their lag, expiries, retention. O(1) when nothing is due. */
  advance(t: number): void {
    if (this.#presets.nextAt() <= t) {
      for (const d of this.#presets.take(t)) this.#makePresets(d.parent, d.at);
    }
    if (this.#expiries.nextAt() + this.#expiryMs <= t) {
      for (const d of this.#expiries.take(t - this.#expiryMs)) {
        const p = this.#plans.get(d.id);
        if (p?.status === 'untriggered') this.#end(p, 'expired', d.at + this.#expiryMs, 'expired (90 days)');
      }
    }
    if (Number.isFinite(this.#retentionMs) && this.#finished.nextAt() < t - this.#retentionMs) {
      this.#forget(this.#finished.take(t - this.#retentionMs - 1));
    }
  }

  /** A snapshot was installed (and its resting orders matched): armed plans of its symbols may fire. */
  onSnapshot(): void {
    if (this.#armedCount === 0) return;
    const host = this.#host;
    const t = host.now;
    for (const symbol of host.inSnapshotOrder(this.#armedSymbols())) {
      const ids = this.#armed.get(symbol);
      if (ids === undefined || ids.size === 0) continue;
      let last: Dec | undefined;
      let mark: Dec | undefined;
      let lastNumber: number | undefined;
      let markNumber: number | undefined;
      const fired: SimPlan[] = [];
      for (const id of ids) {
        let p = this.#plans.get(id);
        if (p === undefined) continue;
        if (p.direction !== undefined) {
          const n =
            p.triggerSource === 'mark'
              ? (markNumber ??= host.priceNumber(symbol, 'mark'))
              : (lastNumber ??= host.priceNumber(symbol, 'last'));
          if (surelyNotFiring(p.direction, n, p.triggerPrice.toNumber())) continue;
        }
        const price =
          p.triggerSource === 'mark'
            ? (mark ??= host.price(symbol, 'mark'))
            : (last ??= host.price(symbol, 'last'));
        if (price === undefined) continue;
        if (p.direction === undefined) {
          // No price at placement: this first one decides (and does not fire unless equal).
          p = this.#save({ ...p, direction: p.triggerPrice.gte(price) ? 'rise' : 'fall' }, false);
        }
        if (fires(p.direction ?? 'rise', price, p.triggerPrice)) fired.push(p);
      }
      for (const p of fired) this.#trigger(p, t);
    }
  }

  /** Every revision of an order goes by here (MatchingCore.#save): children and preset parents. */
  onOrderSaved(prev: SimOrder | undefined, o: SimOrder): void {
    if (this.#byChild.size > 0) {
      const pid = this.#byChild.get(o.orderId);
      if (pid !== undefined) this.#childChanged(pid, o);
    }
    if (
      (o.presetTakeProfitPrice !== undefined || o.presetStopLossPrice !== undefined) &&
      prev !== undefined &&
      isActive(prev) &&
      !isActive(o) &&
      o.filledQty.gt(0) &&
      isOpening(o.side)
    ) {
      this.#presets.push({ at: o.updateTime + this.#lagMs, parent: o });
    }
  }

  // -------------------------------------------------------------------------------------------
  // Reads

  /** The untriggered plans (of `symbol`, or all), newest first, as they stood at `asOf` (default now). */
  current(symbol: string | undefined, asOf?: number): SimPlan[] {
    const out: SimPlan[] = [];
    if (asOf === undefined) {
      for (const [s, ids] of this.#armed) {
        if (symbol !== undefined && s !== symbol) continue;
        for (const id of ids) {
          const p = this.#plans.get(id);
          if (p) out.push(p);
        }
      }
    } else {
      for (const p of this.#asOf(asOf)) {
        if (p.status === 'untriggered' && (symbol === undefined || p.symbol === symbol)) out.push(p);
      }
    }
    return out.sort(newestFirst);
  }

  /**
   * The plans of `symbol` no longer untriggered (triggered, canceled, expired, failed), created in
   * [startTime, endTime], newest first, at most `limit` plus whether more match.
   */
  history(
    f: {
      readonly symbol: string;
      readonly startTime?: number;
      readonly endTime?: number;
      readonly side?: OrderSide;
      readonly limit: number;
    },
    asOf?: number,
  ): { readonly plans: SimPlan[]; readonly more: boolean } {
    const ok = (p: SimPlan): boolean =>
      p.symbol === f.symbol &&
      p.status !== 'untriggered' &&
      (f.startTime === undefined || p.createTime >= f.startTime) &&
      (f.endTime === undefined || p.createTime <= f.endTime) &&
      (f.side === undefined || p.side === f.side);
    const out: SimPlan[] = [];
    if (asOf === undefined) {
      const ids = this.#bySymbol.get(f.symbol) ?? [];
      for (let i = ids.length - 1; i >= 0 && out.length <= f.limit; i--) {
        const p = this.#plans.get(ids[i] as string);
        if (p === undefined) continue;
        if (f.startTime !== undefined && p.createTime < f.startTime) break;
        if (ok(p)) out.push(p);
      }
      out.sort(newestFirst);
    } else {
      out.push(...this.#asOf(asOf).filter(ok).sort(newestFirst));
    }
    return { plans: out.slice(0, f.limit), more: out.length > f.limit };
  }

  // -------------------------------------------------------------------------------------------

  #armedSymbols(): readonly string[] {
    if (this.#armedList !== undefined) return this.#armedList;
    const out: string[] = [];
    for (const [s, ids] of this.#armed) if (ids.size > 0) out.push(s);
    return (this.#armedList = out);
  }

  #asOf(t: number): SimPlan[] {
    const out: SimPlan[] = [];
    for (const revs of this.#revisions.values()) {
      let last: SimPlan | undefined;
      for (const r of revs) {
        if (r.updateTime > t) break;
        last = r;
      }
      if (last) out.push(last);
    }
    return out;
  }

  #create(t: number, fields: Omit<SimPlan, 'status' | 'createTime' | 'updateTime' | 'direction'>): SimPlan {
    const ref = this.#host.price(fields.symbol, fields.triggerSource);
    const direction: TriggerDirection | undefined =
      ref === undefined ? undefined : fields.triggerPrice.gte(ref) ? 'rise' : 'fall';
    const plan: SimPlan = {
      ...fields,
      ...(direction !== undefined ? { direction } : {}),
      status: 'untriggered',
      createTime: t,
      updateTime: t,
    };
    if (plan.clientOid !== undefined) this.#byClientOid.set(plan.clientOid, plan.orderId);
    let ids = this.#bySymbol.get(plan.symbol);
    if (ids === undefined) this.#bySymbol.set(plan.symbol, (ids = []));
    ids.push(plan.orderId);
    this.#expiries.push({ at: t, id: plan.orderId });
    return this.#save(plan);
  }

  /** TP/SL close plans of a preset parent that ended with a fill, at `t` (its end plus the lag). */
  #makePresets(parent: SimOrder, t: number): void {
    const side = closeOf(parent.side);
    const make = (origin: 'presetTakeProfit' | 'presetStopLoss', trigger: Dec | undefined): void => {
      if (trigger === undefined) return;
      const long = parent.side === 'open_long';
      // TP of a long (SL of a short) waits for a rise; the SL of a long (TP of a short) for a fall.
      const direction: TriggerDirection = (origin === 'presetTakeProfit') === long ? 'rise' : 'fall';
      const p = this.#create(t, {
        orderId: this.#host.takeOrderId(),
        symbol: parent.symbol,
        side,
        size: parent.filledQty,
        triggerPrice: trigger,
        triggerSource: this.#source,
        marginMode: parent.marginMode,
        origin,
        parentOrderId: parent.orderId,
      });
      if (p.direction !== direction) this.#save({ ...p, direction }, false);
    };
    make('presetTakeProfit', parent.presetTakeProfitPrice);
    make('presetStopLoss', parent.presetStopLossPrice);
  }

  #trigger(p: SimPlan, t: number): void {
    const oid = this.#childOid === 'inherit' && p.clientOid !== undefined ? p.clientOid : `plan-${p.orderId}`;
    const req: SimOrderRequest = {
      clientOid: oid,
      side: p.side,
      orderType: 'normal',
      size: p.size,
      ...(p.executePrice !== undefined ? { price: p.executePrice } : {}),
      marginMode: p.marginMode,
    };
    const triggered: SimPlan = { ...p, status: 'triggered', triggerTime: t, updateTime: t };
    // Disarmed before the child is placed; the child's first revision (or the refusal) makes it visible.
    this.#save(triggered, false);
    const r = this.#host.placeChild(p.symbol, req);
    if (!r.ok) {
      this.#end(triggered, 'failed', t, r.reject.msg);
      return;
    }
    this.#byChild.set(r.order.orderId, p.orderId);
    this.#childChanged(p.orderId, r.order);
  }

  #childChanged(planId: string, o: SimOrder): void {
    const p = this.#plans.get(planId);
    if (p === undefined) return;
    const child = {
      orderId: o.orderId,
      status: o.status,
      filledQty: o.filledQty,
      filledValue: o.filledValue,
      fee: o.fee,
      totalProfits: o.totalProfits,
    };
    this.#save({ ...p, child, updateTime: o.updateTime });
    if (!isActive(o)) {
      this.#byChild.delete(o.orderId);
      this.#finished.push({ at: o.updateTime, id: planId });
    }
  }

  #end(p: SimPlan, status: 'canceled' | 'expired' | 'failed', t: number, reason: string): SimPlan {
    const ended = this.#save({ ...p, status, reason, updateTime: t });
    this.#finished.push({ at: t, id: p.orderId });
    return ended;
  }

  /**
   * Stores a revision. `visible` false for steps the wire never shows on their own (the direction
   * decided, the trigger just before its child's revision): no revision, no version.
   */
  #save(p: SimPlan, visible = true): SimPlan {
    const prev = this.#plans.get(p.orderId);
    this.#plans.set(p.orderId, p);
    if (visible) {
      this.#version++;
      const revs = this.#revisions.get(p.orderId);
      if (revs) revs.push(p);
      else this.#revisions.set(p.orderId, [p]);
    }
    const armed = p.status === 'untriggered';
    if (armed !== (prev?.status === 'untriggered')) {
      this.#armedList = undefined;
      let ids = this.#armed.get(p.symbol);
      if (ids === undefined) this.#armed.set(p.symbol, (ids = new Set()));
      if (armed) {
        ids.add(p.orderId);
        this.#armedCount++;
      } else {
        ids.delete(p.orderId);
        this.#armedCount--;
      }
    }
    return p;
  }

  #forget(due: readonly Due[]): void {
    for (const d of due) {
      const p = this.#plans.get(d.id);
      // Only finished plans were queued; a triggered one whose child is still active is kept.
      if (p === undefined || p.status === 'untriggered') continue;
      if (p.child !== undefined && this.#byChild.has(p.child.orderId)) continue;
      this.#plans.delete(d.id);
      this.#revisions.delete(d.id);
      if (p.clientOid !== undefined && this.#byClientOid.get(p.clientOid) === d.id)
        this.#byClientOid.delete(p.clientOid);
      this.#forgotten++;
    }
    if (this.#forgotten >= SIM_COMPACT_MIN_DEAD) {
      for (const [s, ids] of this.#bySymbol)
        this.#bySymbol.set(
          s,
          ids.filter((id) => this.#plans.has(id)),
        );
      // An expiry only ends a plan still untriggered, and a plan never goes back to untriggered: the
      // others' entries would wait out the 90 days for nothing (a plan-heavy run kept every one).
      this.#expiries.retain((d) => this.#plans.get(d.id)?.status === 'untriggered');
      this.#forgotten = 0;
    }
  }
}
