// The venue's request-weight limits (weex-facts.md §3), enforced by the simulator: a rolling 10 s
// window of weight per IP and, independently, per UID (1000 each by default), and at most 10
// requests per rolling second on placeOrder/cancel_order/plan_order/cancel_plan per UID. Pure: time is passed in. A refused
// request charges nothing (the venue's behaviour here is undocumented; this is the lenient reading).
import { VENUE_LIMITS, type Endpoint } from '../../core/endpoints.ts';
import type { Footprint } from '../../core/footprint.ts';
import { SIM_COMPACT_MIN_DEAD } from './compaction.ts';

export interface WeightLimits {
  readonly windowMs: number;
  readonly ipWeightPerWindow: number;
  readonly uidWeightPerWindow: number;
  readonly orderRequestsPerSecond: number;
}

export const DEFAULT_WEIGHT_LIMITS: WeightLimits = {
  windowMs: VENUE_LIMITS.windowMs,
  ipWeightPerWindow: VENUE_LIMITS.ipWeightPerWindow,
  uidWeightPerWindow: VENUE_LIMITS.uidWeightPerWindow,
  orderRequestsPerSecond: VENUE_LIMITS.orderRequestsPerSecond,
};

export type LimitScope = 'ip' | 'uid' | 'orderRate';

export type ChargeResult =
  { readonly ok: true } | { readonly ok: false; readonly scope: LimitScope; readonly retryAfterMs: number };

/** The answer to every granted charge (one object, not one per request). */
const GRANTED: ChargeResult = Object.freeze({ ok: true });

/**
 * Weight charged at times; sums what lies inside the last `spanMs`. The entries are two columns of
 * numbers (no object per request: a busy window would keep thousands alive until its compaction).
 */
class RollingWindow {
  readonly #spanMs: number;
  #times: number[] = [];
  #weights: number[] = [];
  #head = 0;
  #total = 0;

  constructor(spanMs: number) {
    this.#spanMs = spanMs;
  }

  used(now: number): number {
    const times = this.#times;
    while (this.#head < times.length && (times[this.#head] as number) <= now - this.#spanMs) {
      this.#total -= this.#weights[this.#head] as number;
      this.#head++;
    }
    if (this.#head > SIM_COMPACT_MIN_DEAD && this.#head * 2 > times.length) {
      this.#times = times.slice(this.#head);
      this.#weights = this.#weights.slice(this.#head);
      this.#head = 0;
    }
    return this.#total;
  }

  /** Milliseconds until `weight` more fits under `limit` (0 when it fits now). */
  waitFor(now: number, weight: number, limit: number): number {
    let excess = this.used(now) + weight - limit;
    if (excess <= 0) return 0;
    for (let i = this.#head; i < this.#times.length; i++) {
      excess -= this.#weights[i] as number;
      if (excess <= 0) return Math.max(1, (this.#times[i] as number) + this.#spanMs - now + 1);
    }
    return this.#spanMs;
  }

  /** Entries in the backing arrays (live, plus expired ones until a compaction: ./compaction.ts). */
  get backing(): number {
    return this.#times.length;
  }

  add(now: number, weight: number): void {
    if (weight <= 0) return;
    this.#times.push(now);
    this.#weights.push(weight);
    this.#total += weight;
  }
}

export class WeightLimiter {
  readonly limits: WeightLimits;
  readonly #ip = new Map<string, RollingWindow>();
  readonly #uid = new Map<string, RollingWindow>();
  readonly #orders = new Map<string, RollingWindow>();

  constructor(limits: Partial<WeightLimits> = {}) {
    this.limits = { ...DEFAULT_WEIGHT_LIMITS, ...limits };
  }

  #window(map: Map<string, RollingWindow>, key: string, spanMs: number): RollingWindow {
    let w = map.get(key);
    if (!w) {
      w = new RollingWindow(spanMs);
      map.set(key, w);
    }
    return w;
  }

  /**
   * Charges one request of `endpoint` at `now` if every applicable window has room; otherwise
   * charges nothing and names the first exhausted scope. `uid` is absent for public endpoints.
   */
  charge(now: number, endpoint: Endpoint, ip: string, uid: string | undefined): ChargeResult {
    const l = this.limits;
    const ipWin = this.#window(this.#ip, ip, l.windowMs);
    const ipWait = ipWin.waitFor(now, endpoint.ipWeight, l.ipWeightPerWindow);
    if (ipWait > 0) return { ok: false, scope: 'ip', retryAfterMs: ipWait };
    const uidWin =
      uid !== undefined && endpoint.uidWeight > 0 ? this.#window(this.#uid, uid, l.windowMs) : undefined;
    if (uidWin) {
      const wait = uidWin.waitFor(now, endpoint.uidWeight, l.uidWeightPerWindow);
      if (wait > 0) return { ok: false, scope: 'uid', retryAfterMs: wait };
    }
    const orderWin = endpoint.orderRateCapped ? this.#window(this.#orders, uid ?? ip, 1000) : undefined;
    if (orderWin) {
      const wait = orderWin.waitFor(now, 1, l.orderRequestsPerSecond);
      if (wait > 0) return { ok: false, scope: 'orderRate', retryAfterMs: wait };
    }
    ipWin.add(now, endpoint.ipWeight);
    uidWin?.add(now, endpoint.uidWeight);
    orderWin?.add(now, 1);
    return GRANTED;
  }

  /**
   * Windows per IP / UID (one each in process) and their entries: the requests of the last window,
   * plus expired ones until a compaction (core/footprint.ts).
   */
  footprint(): Footprint {
    let entries = 0;
    for (const m of [this.#ip, this.#uid, this.#orders]) for (const w of m.values()) entries += w.backing;
    return { windows: this.#ip.size + this.#uid.size + this.#orders.size, entries };
  }

  /** Weight inside the current windows (for /sim/v1/stats). */
  usage(now: number): { ip: Record<string, number>; uid: Record<string, number> } {
    const ip: Record<string, number> = {};
    const uid: Record<string, number> = {};
    for (const [k, w] of this.#ip) ip[k] = w.used(now);
    for (const [k, w] of this.#uid) uid[k] = w.used(now);
    return { ip, uid };
  }
}
