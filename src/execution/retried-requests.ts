// The executor's cancels and reads, the requests that may be sent again (ARCHITECTURE.md invariant 3): a 429 re-queues them, a lost or unsent one is retried up to maxAttempts; at most one cancel per client_oid is queued or in flight.
import type { Clock } from '../core/clock.ts';
import type { OrderEvent } from '../core/events.ts';
import type { EndpointId } from '../core/endpoints.ts';
import type { Footprint } from '../core/footprint.ts';
import type { ClientOid } from '../core/ids.ts';
import type { Dispatcher } from './dispatcher.ts';
import type { CancelJob, ReadJob } from './jobs.ts';
import type { CancelRequestJob, ExecutorPort } from './executor-types.ts';
import { cancelEvent } from './outcomes.ts';
import type { RequestLedger } from './request-ledger.ts';

export interface RetriedRequestsDeps {
  readonly port: ExecutorPort;
  readonly clock: Clock;
  readonly emit: (event: OrderEvent) => void;
  readonly maxAttempts: number;
  readonly ledger: RequestLedger;
  readonly dispatcher: Dispatcher;
}

export class RetriedRequests {
  readonly #port: ExecutorPort;
  readonly #clock: Clock;
  readonly #emit: (event: OrderEvent) => void;
  readonly #maxAttempts: number;
  readonly #ledger: RequestLedger;
  readonly #dispatcher: Dispatcher;
  /** The orders with a cancel queued, in flight or waiting for a retry. */
  readonly #cancelKeys = new Set<ClientOid>();

  constructor(deps: RetriedRequestsDeps) {
    this.#port = deps.port;
    this.#clock = deps.clock;
    this.#emit = deps.emit;
    this.#maxAttempts = deps.maxAttempts;
    this.#ledger = deps.ledger;
    this.#dispatcher = deps.dispatcher;
  }

  /** Orders with a cancel queued, in flight or waiting for a retry (footprint.ts). */
  footprint(): Footprint {
    return { cancelKeys: this.#cancelKeys.size };
  }

  /** True when a cancel of this order is already queued, in flight or waiting for a retry. */
  cancelPending(clientOid: ClientOid): boolean {
    return this.#cancelKeys.has(clientOid);
  }

  /** Queues a cancel of an order that has none pending. */
  cancel(req: CancelRequestJob): void {
    this.#cancelKeys.add(req.clientOid);
    this.#dispatcher.enqueue({ kind: 'cancel', req, attempts: 0 });
  }

  /** Queues a read; `resolve` / `reject` settle its caller's promise. */
  read(
    endpoint: EndpointId,
    run: () => Promise<unknown>,
    resolve: (v: unknown) => void,
    reject: (e: unknown) => void,
  ): void {
    this.#dispatcher.enqueue({ kind: 'read', endpoint, run, resolve, reject, attempts: 0 });
  }

  /** The executor stopped: queued cancels were dropped. */
  clear(): void {
    this.#cancelKeys.clear();
  }

  launchCancel(job: CancelJob): void {
    const { req } = job;
    this.#ledger.cancelsSent++;
    const body = {
      symbol: req.symbol,
      ...(req.orderId !== undefined ? { orderId: req.orderId } : { clientOid: req.clientOid }),
    };
    const send = req.plan === true ? () => this.#port.cancelPlan(body) : () => this.#port.cancelOrder(body);
    this.#dispatcher.track(send, {
      ok: (outcome) => {
        this.#cancelKeys.delete(req.clientOid);
        this.#emit(cancelEvent(req.clientOid, outcome, this.#clock.now()));
      },
      failed: (f) => {
        const at = this.#clock.now();
        if (f.kind === 'rateLimited') {
          this.#dispatcher.enqueue(job);
          return;
        }
        if (f.kind === 'refused') {
          // 50005 (order does not exist) lands here: already gone; reconciliation brings the final state.
          this.#cancelKeys.delete(req.clientOid);
          this.#emit({
            kind: 'CancelRejected',
            clientOid: req.clientOid,
            at,
            code: f.code,
            reason: f.message,
          });
          return;
        }
        // A cancel may be sent again: the worst case is a second "order does not exist".
        job.attempts++;
        if (job.attempts < this.#maxAttempts) {
          this.#dispatcher.later(() => this.#dispatcher.enqueue(job), job);
          return;
        }
        this.#cancelKeys.delete(req.clientOid);
        this.#emit({
          kind: 'CancelRejected',
          clientOid: req.clientOid,
          at,
          code: f.kind === 'unknown' ? 'OUTCOME_UNKNOWN' : 'TRANSPORT',
          reason: f.message,
        });
      },
    });
  }

  launchRead(job: ReadJob): void {
    this.#dispatcher.track(job.run, {
      ok: (v) => job.resolve(v),
      failed: (f, e) => {
        if (f.kind === 'rateLimited') {
          this.#dispatcher.enqueue(job);
          return;
        }
        if (f.kind === 'notSent' || f.kind === 'unknown') {
          job.attempts++;
          if (job.attempts < this.#maxAttempts) {
            this.#dispatcher.later(() => this.#dispatcher.enqueue(job), job);
            return;
          }
        }
        job.reject(e);
      },
    });
  }
}
