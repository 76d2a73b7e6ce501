// A scriptable in-process ExchangePort for executor and engine tests. Each request is logged with
// the (virtual) time it arrived; a policy decides its fate; `settle` can wrap every reply so a
// fast-check scheduler decides the order in which replies come back.
import type { Clock } from '../../src/core/clock.ts';
import { ENDPOINTS, type EndpointId } from '../../src/core/endpoints.ts';
import {
  ExchangeError,
  OutcomeUnknownError,
  RateLimitedError,
  TransportError,
} from '../../src/core/errors.ts';
import { orderId, type ClientOid, type OrderId, type SymbolId } from '../../src/core/ids.ts';
import type { ContractSpec, Ticker } from '../../src/core/market.ts';
import type { CancelOutcome, FillPage, OrderReport, PlaceOutcome, PlanPage } from '../../src/core/reports.ts';
import type {
  CancelPlanRequest,
  CancelRequest,
  CurrentPlanQuery,
  ExchangePort,
  FillsQuery,
  HistoryQuery,
  PlaceEntry,
  PlanEntry,
  PlanHistoryQuery,
} from '../../src/exchange/port.ts';

/**
 * accept: processed, each entry accepted or rejected by `entryPolicy`;
 * refuse: the exchange answers an error envelope for the whole request (nothing processed);
 * lost: processed, then the reply is lost (OutcomeUnknownError);
 * rateLimited: HTTP 429, nothing processed; transport: never reached the exchange.
 */
export type Fate = 'accept' | 'refuse' | 'lost' | 'rateLimited' | 'transport';

export interface FakeRequest {
  readonly seq: number;
  readonly at: number;
  readonly endpoint: EndpointId;
  readonly symbol?: SymbolId;
  /** Placements: the entries' client_oids; cancels: the target's client_oid or order id. */
  readonly ids: readonly string[];
  readonly fate: Fate;
}

export interface FakeExchangeOptions {
  readonly clock: Clock;
  readonly fate?: (req: Omit<FakeRequest, 'fate'>) => Fate;
  readonly entryPolicy?: (entry: PlaceEntry) => 'accept' | 'reject';
  /** Wraps the production of every reply (e.g. fast-check's scheduler). */
  readonly settle?: <T>(reply: () => Promise<T>) => Promise<T>;
  readonly tickers?: () => readonly Ticker[];
  readonly contracts?: readonly ContractSpec[];
}

interface ExchangeOrder {
  readonly clientOid: ClientOid;
  readonly orderId: OrderId;
  readonly symbol: SymbolId;
  status: 'open' | 'canceled';
}

export class FakeExchange implements ExchangePort {
  readonly requests: FakeRequest[] = [];
  /** Orders the exchange created, in creation order (duplicates here would be a double placement). */
  readonly created: ExchangeOrder[] = [];
  /** Plan orders the exchange created, in creation order. */
  readonly plans: ExchangeOrder[] = [];
  readonly #opts: FakeExchangeOptions;
  #nextOrderId = 100_000_000_000_000_000n;

  constructor(opts: FakeExchangeOptions) {
    this.#opts = opts;
  }

  serverTime(): Promise<number> {
    return Promise.resolve(this.#opts.clock.now());
  }
  contracts(): Promise<readonly ContractSpec[]> {
    return Promise.resolve(this.#opts.contracts ?? []);
  }
  tickers(): Promise<readonly Ticker[]> {
    return Promise.resolve(this.#opts.tickers?.() ?? []);
  }

  placeOrder(symbol: SymbolId, entry: PlaceEntry): Promise<PlaceOutcome> {
    return this.#handle('placeOrder', symbol, [entry.clientOid], () => {
      const [o] = this.#place(symbol, [entry]);
      return o as PlaceOutcome;
    });
  }
  placeBatch(symbol: SymbolId, entries: readonly PlaceEntry[]): Promise<readonly PlaceOutcome[]> {
    if (entries.length < 1 || entries.length > 20)
      return Promise.reject(new Error(`batch of ${entries.length} entries`));
    return this.#handle(
      'batchOrders',
      symbol,
      entries.map((e) => e.clientOid),
      () => this.#place(symbol, entries),
    );
  }
  cancelOrder(req: CancelRequest): Promise<CancelOutcome> {
    const id = req.orderId ?? req.clientOid ?? '';
    return this.#handle('cancelOrder', req.symbol, [id], () => {
      const o = this.created.find((c) => c.orderId === req.orderId || c.clientOid === req.clientOid);
      if (o === undefined || o.status !== 'open')
        throw new ExchangeError('50005', 'Order does not exist', 400, 'not_found', 'cancelOrder');
      o.status = 'canceled';
      return { orderId: o.orderId, clientOid: o.clientOid, result: true };
    });
  }
  fills(_q: FillsQuery): Promise<FillPage> {
    return this.#handle('fills', undefined, [], () => ({ fills: [], nextFlag: false }));
  }
  history(_q: HistoryQuery): Promise<readonly OrderReport[]> {
    return this.#handle('history', undefined, [], () => []);
  }
  planHistory(_q: PlanHistoryQuery): Promise<PlanPage> {
    return this.#handle('historyPlan', undefined, [], () => ({ plans: [], nextPage: false }));
  }
  /** Plans are only recorded (in `plans`): they never trigger here. */
  placePlan(symbol: SymbolId, entry: PlanEntry): Promise<PlaceOutcome> {
    return this.#handle('planOrder', symbol, [entry.clientOid], () => {
      const id = orderId(String(this.#nextOrderId++));
      this.plans.push({ orderId: id, clientOid: entry.clientOid, symbol, status: 'open' });
      return { clientOid: entry.clientOid, outcome: 'accepted' as const, orderId: id };
    });
  }
  cancelPlan(req: CancelPlanRequest): Promise<CancelOutcome> {
    const id = req.orderId ?? req.clientOid ?? '';
    return this.#handle('cancelPlan', req.symbol, [id], () => {
      const p = this.plans.find((c) => c.orderId === req.orderId || c.clientOid === req.clientOid);
      if (p === undefined || p.status !== 'open')
        throw new ExchangeError('50005', 'Order does not exist', 400, 'not_found', 'cancelPlan');
      p.status = 'canceled';
      return { orderId: p.orderId, clientOid: p.clientOid, result: true };
    });
  }
  currentPlans(_q: CurrentPlanQuery): Promise<PlanPage> {
    return this.#handle('currentPlan', undefined, [], () => ({ plans: [], nextPage: false }));
  }

  /** Client_oids the exchange processed more than once (must stay empty). */
  duplicates(): ClientOid[] {
    const seen = new Set<ClientOid>();
    const dup: ClientOid[] = [];
    for (const o of this.created) {
      if (seen.has(o.clientOid)) dup.push(o.clientOid);
      seen.add(o.clientOid);
    }
    return dup;
  }

  /** Largest sum of a weight over any window of `windowMs` (requests at t count until t + windowMs). */
  maxWindow(windowMs: number, weight: (endpoint: EndpointId) => number): number {
    let max = 0;
    let sum = 0;
    let lo = 0;
    const reqs = this.requests;
    for (let hi = 0; hi < reqs.length; hi++) {
      const r = reqs[hi]!;
      sum += weight(r.endpoint);
      while (reqs[lo]!.at <= r.at - windowMs) sum -= weight(reqs[lo++]!.endpoint);
      max = Math.max(max, sum);
    }
    return max;
  }

  maxIpWeight(windowMs = 10_000): number {
    return this.maxWindow(windowMs, (e) => ENDPOINTS[e].ipWeight);
  }
  maxUidWeight(windowMs = 10_000): number {
    return this.maxWindow(windowMs, (e) => ENDPOINTS[e].uidWeight);
  }
  maxOrderRate(windowMs = 1_000): number {
    return this.maxWindow(windowMs, (e) => (ENDPOINTS[e].orderRateCapped ? 1 : 0));
  }

  #place(symbol: SymbolId, entries: readonly PlaceEntry[]): PlaceOutcome[] {
    return entries.map((e): PlaceOutcome => {
      if ((this.#opts.entryPolicy?.(e) ?? 'accept') === 'reject') {
        return { clientOid: e.clientOid, outcome: 'rejected', code: '40015', message: 'System error' };
      }
      const id = orderId(String(this.#nextOrderId++));
      this.created.push({ clientOid: e.clientOid, orderId: id, symbol, status: 'open' });
      return { clientOid: e.clientOid, outcome: 'accepted', orderId: id };
    });
  }

  #handle<T>(
    endpoint: EndpointId,
    symbol: SymbolId | undefined,
    ids: readonly string[],
    process: () => T,
  ): Promise<T> {
    const base = {
      seq: this.requests.length,
      at: this.#opts.clock.now(),
      endpoint,
      ...(symbol !== undefined ? { symbol } : {}),
      ids,
    };
    const fate = this.#opts.fate?.(base) ?? 'accept';
    this.requests.push({ ...base, fate });
    const reply = (): Promise<T> => {
      switch (fate) {
        case 'accept':
          return new Promise<T>((resolve) => resolve(process()));
        case 'refuse':
          return Promise.reject(
            new ExchangeError('40017', 'Parameter validation failed', 400, 'parameter', endpoint),
          );
        case 'lost':
          process();
          return Promise.reject(new OutcomeUnknownError('reply lost', endpoint));
        case 'rateLimited':
          return Promise.reject(new RateLimitedError('Too many requests', endpoint, 0));
        case 'transport':
          return Promise.reject(new TransportError('connection refused', endpoint));
      }
    };
    return this.#opts.settle ? this.#opts.settle(reply) : reply();
  }
}
