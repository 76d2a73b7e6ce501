// The weight budget (pure): may a request of a given endpoint leave now, and if not, in how many ms?
//
// Three pools, all rolling windows over the requests granted so far (core/sliding-window.ts):
// - IP weight and UID weight: each ≤ floor(limit × safetyMargin × factor) per `windowMs` (10 s);
// - order requests (endpoints with `orderRateCapped`: placeOrder, cancel_order, plan_order, cancel_plan):
//   ≤ floor(cap × safetyMargin × factor) per `orderRateWindowMs` (1 s), i.e. 9 of the venue's 10.
// Every window is counted `guardMs` longer than the exchange's, so the jitter between the moment we
// grant a request and the moment the exchange counts it cannot push two grants into one of its windows.
//
// A 429 (`onRateLimited`) multiplies the factor by `rateLimitShrink` (not below `minFactor`); the
// factor then recovers linearly by `recoveryPerSecond` up to 1. It also imposes a back-off that
// doubles with each 429 following another within one window (up to `maxBackoffMs`).
//
// Values are immutable; each call is O(log n) (amortised O(1) appends). `now` is always a parameter;
// a `now` earlier than one seen before is treated as that time (the budget's clock never steps back).
import { ENDPOINTS, VENUE_LIMITS, type EndpointId } from '../core/endpoints.ts';
import { ConfigError } from '../core/errors.ts';
import { append, createWindowLog, expire, fitTime, sumOf, type WindowLog } from '../core/sliding-window.ts';

export interface BudgetConfig {
  /** Exchange window of the weight pools. */
  readonly windowMs: number;
  readonly ipWeightPerWindow: number;
  readonly uidWeightPerWindow: number;
  /** Fraction of each weight pool capibot allows itself (0.9 → 900 of 1000). */
  readonly safetyMargin: number;
  /** Cap on order requests (placeOrder, cancel_order, plan_order, cancel_plan) per `orderRateWindowMs`. */
  readonly orderRequestsPerSecond: number;
  readonly orderRateWindowMs: number;
  /** Added to every window length (see above). */
  readonly guardMs: number;
  /** Factor applied to every pool on a 429. */
  readonly rateLimitShrink: number;
  /** The factor never drops below this. */
  readonly minFactor: number;
  /** How fast the factor recovers after a 429, per second (0.01 → 0.8 is back to 1 after 20 s). */
  readonly recoveryPerSecond: number;
  /** Back-off after a first 429; doubles for each further 429 within one window. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
}

export const DEFAULT_BUDGET_CONFIG: BudgetConfig = Object.freeze({
  windowMs: VENUE_LIMITS.windowMs,
  ipWeightPerWindow: VENUE_LIMITS.ipWeightPerWindow,
  uidWeightPerWindow: VENUE_LIMITS.uidWeightPerWindow,
  safetyMargin: 0.9,
  orderRequestsPerSecond: VENUE_LIMITS.orderRequestsPerSecond,
  orderRateWindowMs: 1_000,
  guardMs: 50,
  rateLimitShrink: 0.8,
  minFactor: 0.5,
  recoveryPerSecond: 0.01,
  backoffMs: 1_000,
  maxBackoffMs: 10_000,
});

/** What one request costs: an endpoint of the catalogue has exactly these fields. */
export interface RequestCost {
  readonly ipWeight: number;
  readonly uidWeight: number;
  readonly orderRateCapped: boolean;
}

export interface BudgetState {
  readonly config: BudgetConfig;
  /** Dimensions: 0 = IP weight, 1 = UID weight. */
  readonly weights: WindowLog;
  /** Order-rate-capped requests (one dimension: count). */
  readonly orders: WindowLog;
  /** The latest `now` seen. */
  readonly clock: number;
  /** No grant before this time (429 back-off). */
  readonly backoffUntil: number;
  /** The factor right after the last 429 (1 when there was none). */
  readonly factorAtShrink: number;
  /** Time of the last 429 (−Infinity when there was none). */
  readonly shrunkAt: number;
  /** 429s in a row, each within one window of the previous. */
  readonly strikes: number;
  /** Totals granted since creation, for metrics and reports. */
  readonly totals: { readonly ipWeight: number; readonly uidWeight: number; readonly requests: number };
}

export type ConsumeResult =
  | { readonly granted: true; readonly state: BudgetState }
  /** `waitMs`: time until the request would fit, as things stand (Infinity: it never fits). */
  | { readonly granted: false; readonly waitMs: number; readonly state: BudgetState };

export interface PoolUsage {
  readonly used: number;
  readonly limit: number;
  readonly remaining: number;
}

export interface BudgetUsage {
  readonly ip: PoolUsage;
  readonly uid: PoolUsage;
  readonly orderRate: PoolUsage;
  /** Current shrink factor (1 = full budget). */
  readonly factor: number;
  /** Remaining back-off, ms. */
  readonly backoffMs: number;
  /** The window the weight pools are counted over (`ip` and `uid` are per window). */
  readonly windowMs: number;
  readonly totals: BudgetState['totals'];
}

// 0.9 × 1000 is 900 in binary floating point, but other products may land a hair below an integer.
const floorLimit = (x: number): number => Math.floor(x + 1e-9);

export function costOf(endpoint: EndpointId | RequestCost): RequestCost {
  return typeof endpoint === 'string' ? ENDPOINTS[endpoint] : endpoint;
}

/** The effective limits at a given factor. */
export function effectiveLimits(
  config: BudgetConfig,
  factor = 1,
): { ip: number; uid: number; orderRate: number } {
  return {
    ip: Math.max(1, floorLimit(config.ipWeightPerWindow * config.safetyMargin * factor)),
    uid: Math.max(1, floorLimit(config.uidWeightPerWindow * config.safetyMargin * factor)),
    orderRate: Math.max(1, floorLimit(config.orderRequestsPerSecond * config.safetyMargin * factor)),
  };
}

function validate(c: BudgetConfig): void {
  const positive: (keyof BudgetConfig)[] = [
    'windowMs',
    'ipWeightPerWindow',
    'uidWeightPerWindow',
    'orderRequestsPerSecond',
    'orderRateWindowMs',
    'backoffMs',
    'maxBackoffMs',
  ];
  for (const k of positive) {
    if (!(c[k] > 0) || !Number.isFinite(c[k]))
      throw new ConfigError(`must be a positive number, got ${c[k]}`, `budget.${k}`);
  }
  const ratios = ['safetyMargin', 'rateLimitShrink', 'minFactor'] as const;
  for (const k of ratios) {
    if (!(c[k] > 0 && c[k] <= 1)) throw new ConfigError(`must be in (0, 1], got ${c[k]}`, `budget.${k}`);
  }
  if (!(c.guardMs >= 0)) throw new ConfigError(`must be ≥ 0, got ${c.guardMs}`, 'budget.guardMs');
  if (!(c.recoveryPerSecond > 0))
    throw new ConfigError(`must be > 0, got ${c.recoveryPerSecond}`, 'budget.recoveryPerSecond');
  // Even fully shrunk, every endpoint of the catalogue must fit in an empty window.
  const floor = effectiveLimits(c, c.minFactor);
  for (const e of Object.values(ENDPOINTS)) {
    if (e.ipWeight > floor.ip || e.uidWeight > floor.uid) {
      throw new ConfigError(
        `${e.id} (IP ${e.ipWeight}, UID ${e.uidWeight}) would not fit the budget shrunk to IP ${floor.ip}, UID ${floor.uid}`,
        'budget',
      );
    }
  }
}

export function createBudget(config: Partial<BudgetConfig> = {}): BudgetState {
  const c: BudgetConfig = Object.freeze({ ...DEFAULT_BUDGET_CONFIG, ...config });
  validate(c);
  return {
    config: c,
    weights: createWindowLog(c.windowMs + c.guardMs, 2),
    orders: createWindowLog(c.orderRateWindowMs + c.guardMs, 1),
    clock: Number.NEGATIVE_INFINITY,
    backoffUntil: Number.NEGATIVE_INFINITY,
    factorAtShrink: 1,
    shrunkAt: Number.NEGATIVE_INFINITY,
    strikes: 0,
    totals: { ipWeight: 0, uidWeight: 0, requests: 0 },
  };
}

/** The shrink factor at time t. */
export function factorAt(state: BudgetState, t: number): number {
  if (state.factorAtShrink >= 1) return 1;
  const recovered = state.factorAtShrink + ((t - state.shrunkAt) / 1000) * state.config.recoveryPerSecond;
  return Math.min(1, recovered);
}

/** Grants the request (and records it) if every pool has room at `now`; otherwise says how long to wait. */
export function tryConsume(
  state: BudgetState,
  now: number,
  endpoint: EndpointId | RequestCost,
): ConsumeResult {
  const t = Math.max(now, state.clock);
  const cost = costOf(endpoint);
  const weights = expire(state.weights, t);
  const orders = expire(state.orders, t);
  const limits = effectiveLimits(state.config, factorAt(state, t));
  const fitsAt = Math.max(
    t,
    state.backoffUntil,
    cost.ipWeight > 0 ? fitTime(weights, t, 0, cost.ipWeight, limits.ip) : t,
    cost.uidWeight > 0 ? fitTime(weights, t, 1, cost.uidWeight, limits.uid) : t,
    cost.orderRateCapped ? fitTime(orders, t, 0, 1, limits.orderRate) : t,
  );
  if (fitsAt > t) {
    return { granted: false, waitMs: fitsAt - t, state: moved(state, weights, orders, t, state.totals) };
  }
  return { granted: true, state: granted(state, weights, orders, t, cost) };
}

/**
 * Records a request granted elsewhere (by the shared budget in Redis) at `now`, without a check: in
 * the window and the totals, exactly as `tryConsume` records a grant.
 */
export function recordGrant(
  state: BudgetState,
  now: number,
  endpoint: EndpointId | RequestCost,
): BudgetState {
  const t = Math.max(now, state.clock);
  return granted(state, expire(state.weights, t), expire(state.orders, t), t, costOf(endpoint));
}

/** `state` (its logs expired to `t`) with one request of `cost` granted at `t`. */
function granted(
  state: BudgetState,
  weights: WindowLog,
  orders: WindowLog,
  t: number,
  cost: RequestCost,
): BudgetState {
  if (cost.ipWeight > 0 || cost.uidWeight > 0) weights = append(weights, t, [cost.ipWeight, cost.uidWeight]);
  if (cost.orderRateCapped) orders = append(orders, t, [1]);
  return moved(state, weights, orders, t, {
    ipWeight: state.totals.ipWeight + cost.ipWeight,
    uidWeight: state.totals.uidWeight + cost.uidWeight,
    requests: state.totals.requests + 1,
  });
}

/**
 * `state` with new logs, clock and totals. Written out field by field rather than spread: the state
 * holds floating-point times (epoch ms are not small integers), and V8 copies such objects by spread
 * about seven times slower (this runs for every request, and for every skipped round of a backtest).
 */
export function moved(
  state: BudgetState,
  weights: WindowLog,
  orders: WindowLog,
  clock: number,
  totals: BudgetState['totals'],
): BudgetState {
  return {
    config: state.config,
    weights,
    orders,
    clock,
    backoffUntil: state.backoffUntil,
    factorAtShrink: state.factorAtShrink,
    shrunkAt: state.shrunkAt,
    strikes: state.strikes,
    totals,
  };
}

/**
 * The exchange answered 429: shrink every pool and back off. `retryAfterMs`, when the exchange gave
 * one, lengthens the back-off (never shortens it).
 */
export function onRateLimited(state: BudgetState, now: number, retryAfterMs = 0): BudgetState {
  const t = Math.max(now, state.clock);
  const c = state.config;
  const factor = Math.max(c.minFactor, factorAt(state, t) * c.rateLimitShrink);
  const strikes = t - state.shrunkAt < c.windowMs ? state.strikes + 1 : 1;
  const backoff = Math.min(c.maxBackoffMs, c.backoffMs * 2 ** (strikes - 1));
  return {
    ...state,
    clock: t,
    factorAtShrink: factor,
    shrunkAt: t,
    strikes,
    backoffUntil: Math.max(state.backoffUntil, t + Math.max(backoff, retryAfterMs)),
  };
}

/** Used and remaining per pool at `now`, for metrics. */
export function usage(state: BudgetState, now: number): BudgetUsage {
  const t = Math.max(now, state.clock);
  const weights = expire(state.weights, t);
  const orders = expire(state.orders, t);
  const factor = factorAt(state, t);
  const limits = effectiveLimits(state.config, factor);
  const pool = (used: number, limit: number): PoolUsage => ({
    used,
    limit,
    remaining: Math.max(0, limit - used),
  });
  return {
    ip: pool(sumOf(weights, 0), limits.ip),
    uid: pool(sumOf(weights, 1), limits.uid),
    orderRate: pool(sumOf(orders, 0), limits.orderRate),
    factor,
    backoffMs: Math.max(0, state.backoffUntil - t),
    windowMs: state.config.windowMs,
    totals: state.totals,
  };
}
