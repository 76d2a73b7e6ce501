// Counters of one simulator: requests per endpoint, weight charged, 429s (real and injected), faults
// injected by kind, error envelopes by code. Served at /sim/v1/stats and read by backtest reports.
import type { Footprint } from '../../core/footprint.ts';
import type { Endpoint } from '../../core/endpoints.ts';
import { byCodeUnits } from '../../core/small-sort.ts';
import { FAULT_KINDS, type FaultKind } from './faults.ts';
import type { LimitScope } from './weights.ts';

export interface SimStatsSnapshot {
  readonly requests: {
    readonly total: number;
    readonly byEndpoint: Record<string, number>;
    readonly unknownPath: number;
  };
  /** Weight charged since start (accepted requests only). */
  readonly weightUsed: { readonly ip: number; readonly uid: number };
  /** 429 answers of the weight limiter, by exhausted window. */
  readonly rateLimited: { readonly total: number; readonly byScope: Record<LimitScope, number> };
  /** Every 429 sent: the limiter's plus the injected ones. */
  readonly responses429: number;
  readonly faults: { readonly total: number; readonly byKind: Record<FaultKind, number> };
  readonly errors: { readonly byCode: Record<string, number> };
}

/**
 * Entries by key in code-unit order: endpoint ids and venue codes are ASCII letters and digits, for
 * which it is the order `localeCompare` gave. Not `localeCompare`: its first call loads ICU's
 * collation data, about 70 M instructions (25 ms) at the end of every backtest.
 */
function byKey([a]: readonly [string, number], [b]: readonly [string, number]): number {
  return byCodeUnits(a, b);
}

export class SimStats {
  readonly #byEndpoint = new Map<string, number>();
  #unknownPath = 0;
  #ipWeight = 0;
  #uidWeight = 0;
  readonly #limited: Record<LimitScope, number> = { ip: 0, uid: 0, orderRate: 0 };
  readonly #errors = new Map<string, number>();

  /** Counts per endpoint and per error code: the venue's vocabulary, not its traffic (core/footprint.ts). */
  footprint(): Footprint {
    return { endpoints: this.#byEndpoint.size, errorCodes: this.#errors.size };
  }

  request(endpointId: string, times = 1): void {
    this.#byEndpoint.set(endpointId, (this.#byEndpoint.get(endpointId) ?? 0) + times);
  }

  unknownPath(): void {
    this.#unknownPath++;
  }

  charged(e: Endpoint, withUid: boolean, times = 1): void {
    this.#ipWeight += e.ipWeight * times;
    if (withUid) this.#uidWeight += e.uidWeight * times;
  }

  limited(scope: LimitScope): void {
    this.#limited[scope]++;
  }

  error(code: string): void {
    this.#errors.set(code, (this.#errors.get(code) ?? 0) + 1);
  }

  snapshot(faults: Record<FaultKind, number>): SimStatsSnapshot {
    const byEndpoint = Object.fromEntries([...this.#byEndpoint].sort(byKey));
    const total = [...this.#byEndpoint.values()].reduce((a, b) => a + b, 0) + this.#unknownPath;
    const limitedTotal = this.#limited.ip + this.#limited.uid + this.#limited.orderRate;
    const byKind = Object.fromEntries(FAULT_KINDS.map((k) => [k, faults[k]])) as Record<FaultKind, number>;
    return {
      requests: { total, byEndpoint, unknownPath: this.#unknownPath },
      weightUsed: { ip: this.#ipWeight, uid: this.#uidWeight },
      rateLimited: { total: limitedTotal, byScope: { ...this.#limited } },
      responses429: limitedTotal + faults.rateLimited,
      faults: { total: FAULT_KINDS.reduce((a, k) => a + faults[k], 0), byKind },
      errors: { byCode: Object.fromEntries([...this.#errors].sort(byKey)) },
    };
  }
}
