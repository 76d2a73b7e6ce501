// An exchange port in front of another (the simulator) that notes every request it passes on: the
// clock time it left and its endpoint (hence its weights). Requests answered 429 are counted apart:
// the venue charges them nothing. An optional hook runs the moment a placement request leaves.
import type { Clock } from '../src/core/clock.ts';
import type { EndpointId } from '../src/core/endpoints.ts';
import { RateLimitedError } from '../src/core/errors.ts';
import type { SymbolId } from '../src/core/ids.ts';
import type { ContractSpec, Ticker } from '../src/core/market.ts';
import type { CancelOutcome, FillPage, OrderReport, PlaceOutcome, PlanPage } from '../src/core/reports.ts';
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
} from '../src/exchange/port.ts';

export interface SentRequest {
  readonly t: number;
  readonly endpoint: EndpointId;
}

export class MeteredPort implements ExchangePort {
  readonly #inner: ExchangePort;
  readonly #clock: Clock;
  /** Requests the venue took (and charged), in the order they left. */
  readonly sent: SentRequest[] = [];
  rateLimited = 0;
  /** Called synchronously when placeOrder or placeBatch is called, before the request is passed on. */
  onPlacement: (() => void) | undefined;

  constructor(inner: ExchangePort, clock: Clock) {
    this.#inner = inner;
    this.#clock = clock;
  }

  #note<T>(endpoint: EndpointId, request: () => Promise<T>): Promise<T> {
    const t = this.#clock.now();
    return request().then(
      (v) => {
        this.sent.push({ t, endpoint });
        return v;
      },
      (e: unknown) => {
        if (e instanceof RateLimitedError) this.rateLimited++;
        else this.sent.push({ t, endpoint });
        throw e;
      },
    );
  }

  serverTime(): Promise<number> {
    return this.#note('time', () => this.#inner.serverTime());
  }
  contracts(): Promise<readonly ContractSpec[]> {
    return this.#note('contracts', () => this.#inner.contracts());
  }
  tickers(): Promise<readonly Ticker[]> {
    return this.#note('tickers', () => this.#inner.tickers());
  }
  placeOrder(symbol: SymbolId, entry: PlaceEntry): Promise<PlaceOutcome> {
    this.onPlacement?.();
    return this.#note('placeOrder', () => this.#inner.placeOrder(symbol, entry));
  }
  placeBatch(symbol: SymbolId, entries: readonly PlaceEntry[]): Promise<readonly PlaceOutcome[]> {
    this.onPlacement?.();
    return this.#note('batchOrders', () => this.#inner.placeBatch(symbol, entries));
  }
  cancelOrder(req: CancelRequest): Promise<CancelOutcome> {
    return this.#note('cancelOrder', () => this.#inner.cancelOrder(req));
  }
  fills(q: FillsQuery): Promise<FillPage> {
    return this.#note('fills', () => this.#inner.fills(q));
  }
  history(q: HistoryQuery): Promise<readonly OrderReport[]> {
    return this.#note('history', () => this.#inner.history(q));
  }
  planHistory(q: PlanHistoryQuery): Promise<PlanPage> {
    return this.#note('historyPlan', () => this.#inner.planHistory(q));
  }
  placePlan(symbol: SymbolId, entry: PlanEntry): Promise<PlaceOutcome> {
    this.onPlacement?.();
    return this.#note('planOrder', () => this.#inner.placePlan(symbol, entry));
  }
  cancelPlan(req: CancelPlanRequest): Promise<CancelOutcome> {
    return this.#note('cancelPlan', () => this.#inner.cancelPlan(req));
  }
  currentPlans(q: CurrentPlanQuery): Promise<PlanPage> {
    return this.#note('currentPlan', () => this.#inner.currentPlans(q));
  }
}
