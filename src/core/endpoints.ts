// The endpoint catalogue as data: one row per capi/v2 operation capibot uses. The executor's weight
// budget, the client and the simulator all read weights from here, so they cannot disagree.
// Weights: newer official doc pages (weex-facts.md §3). Budgets: 1000 weight per rolling 10 s per IP
// and, independently, per UID; place/cancel at most 10 requests per second.

export type EndpointId =
  | 'time'
  | 'contracts'
  | 'tickers'
  | 'placeOrder'
  | 'batchOrders'
  | 'cancelOrder'
  | 'history'
  | 'fills'
  | 'historyPlan'
  | 'planOrder'
  | 'cancelPlan'
  | 'currentPlan';

/**
 * Reads that were not sent because their answer could not differ from the last one (a backtest's
 * skipped reconciliation round), to be charged as if sent at `at`.
 */
export interface UnsentReads {
  readonly at: number;
  readonly endpoints: readonly EndpointId[];
}

/** Requests per endpoint, for charges made in bulk. */
export type EndpointCounts = Partial<Record<EndpointId, number>>;

/**
 * Charges made in one pass without a refusal being possible (RoundShortcut.bulk): every request
 * counted in `counts`, and those in the last window, `tail`, charged one by one at their times so
 * the weight windows end exactly as charging each in turn would leave them.
 */
export interface BulkCharges {
  /** Every request of the pass (the tail's included), per endpoint. */
  readonly counts: EndpointCounts;
  /** The requests later than the last one's time minus the span, in time order. */
  readonly tail: readonly UnsentReads[];
  /** Most weight the pass's rounds can take in one span (Reconciler.skippedWeightBound). */
  readonly roundsBound: { readonly ip: number; readonly uid: number };
  /** Most deferred tickers reads in one span. */
  readonly deferredPerSpan: number;
}

export interface Endpoint {
  readonly id: EndpointId;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Weight charged to the per-IP window. */
  readonly ipWeight: number;
  /** Weight charged to the per-UID (account) window; 0 for public endpoints. */
  readonly uidWeight: number;
  readonly signed: boolean;
  /** Counts toward the 10 requests/second cap on order placement and cancellation. */
  readonly orderRateCapped: boolean;
  /** A read: safe to retry after any failure. */
  readonly idempotent: boolean;
  readonly maxBatch?: number;
}

export const ENDPOINTS: Readonly<Record<EndpointId, Endpoint>> = {
  time: {
    id: 'time',
    method: 'GET',
    path: '/capi/v2/market/time',
    ipWeight: 1,
    uidWeight: 0,
    signed: false,
    orderRateCapped: false,
    idempotent: true,
  },
  contracts: {
    id: 'contracts',
    method: 'GET',
    path: '/capi/v2/market/contracts',
    ipWeight: 10,
    uidWeight: 0,
    signed: false,
    orderRateCapped: false,
    idempotent: true,
  },
  tickers: {
    id: 'tickers',
    method: 'GET',
    path: '/capi/v2/market/tickers',
    ipWeight: 40,
    uidWeight: 0,
    signed: false,
    orderRateCapped: false,
    idempotent: true,
  },
  placeOrder: {
    id: 'placeOrder',
    method: 'POST',
    path: '/capi/v2/order/placeOrder',
    ipWeight: 2,
    uidWeight: 5,
    signed: true,
    orderRateCapped: true,
    idempotent: false,
  },
  batchOrders: {
    id: 'batchOrders',
    method: 'POST',
    path: '/capi/v2/order/batchOrders',
    ipWeight: 5,
    uidWeight: 10,
    signed: true,
    orderRateCapped: false,
    idempotent: false,
    maxBatch: 20,
  },
  cancelOrder: {
    id: 'cancelOrder',
    method: 'POST',
    path: '/capi/v2/order/cancel_order',
    ipWeight: 2,
    uidWeight: 3,
    signed: true,
    orderRateCapped: true,
    idempotent: false,
  },
  history: {
    id: 'history',
    method: 'GET',
    path: '/capi/v2/order/history',
    ipWeight: 10,
    uidWeight: 10,
    signed: true,
    orderRateCapped: false,
    idempotent: true,
  },
  fills: {
    id: 'fills',
    method: 'GET',
    path: '/capi/v2/order/fills',
    ipWeight: 5,
    uidWeight: 5,
    signed: true,
    orderRateCapped: false,
    idempotent: true,
  },
  historyPlan: {
    id: 'historyPlan',
    method: 'GET',
    path: '/capi/v2/order/historyPlan',
    ipWeight: 5,
    uidWeight: 10,
    signed: true,
    orderRateCapped: false,
    idempotent: true,
  },
  // Plan (trigger) orders (weex-facts.md §3, §5): the ≤ 10 req/s cap covers plan_order and cancel_plan.
  planOrder: {
    id: 'planOrder',
    method: 'POST',
    path: '/capi/v2/order/plan_order',
    ipWeight: 2,
    uidWeight: 5,
    signed: true,
    orderRateCapped: true,
    idempotent: false,
  },
  cancelPlan: {
    id: 'cancelPlan',
    method: 'POST',
    path: '/capi/v2/order/cancel_plan',
    ipWeight: 2,
    uidWeight: 3,
    signed: true,
    orderRateCapped: true,
    idempotent: false,
  },
  currentPlan: {
    id: 'currentPlan',
    method: 'GET',
    path: '/capi/v2/order/currentPlan',
    ipWeight: 3,
    uidWeight: 3,
    signed: true,
    orderRateCapped: false,
    idempotent: true,
  },
};

export const ENDPOINT_BY_PATH: ReadonlyMap<string, Endpoint> = new Map(
  Object.values(ENDPOINTS).map((e) => [e.path, e]),
);

/** Venue limits (weex-facts.md §3). Configurable in the budget and the simulator; these are defaults. */
export const VENUE_LIMITS = {
  windowMs: 10_000,
  ipWeightPerWindow: 1000,
  uidWeightPerWindow: 1000,
  orderRequestsPerSecond: 10,
  maxBatchOrders: 20,
  timestampToleranceMs: 30_000,
} as const;
