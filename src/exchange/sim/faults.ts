// Fault injection: a profile (YAML or JSON, zod-validated) lists faults with a probability and an
// optional endpoint filter (endpoint ids of core/endpoints.ts); a seeded RNG decides, per request,
// which ones fire. Deterministic: the same profile, seed and request sequence inject the same faults.
// Late fills are decided per fill by a stateless hash, so asking twice gives the same answer.
//
//   seed: 7                                   # optional; --seed wins
//   faults:
//     - { kind: latency, probability: 1, minMs: 20, maxMs: 200 }          # or `ms: 50` (fixed)
//     - { kind: responseLost, probability: 0.05, endpoints: [placeOrder, batchOrders] }  # applied, then reset
//     - { kind: resetBeforeProcessing, probability: 0.01 }                 # reset, nothing applied
//     - { kind: serverError, probability: 0.01, status: 502, afterProcessing: false }
//     - { kind: rateLimited, probability: 0.01 }                           # an extra HTTP 429
//     - { kind: staleHistory, probability: 0.5, lagMs: 5000 }              # history as of 5 s ago
//       (default endpoints [history]; historyPlan and currentPlan may be named too)
//     - { kind: duplicateRows, probability: 0.2, endpoints: [history, fills] }  # or historyPlan, currentPlan
//     - { kind: lateFills, probability: 0.3, delayMs: 2000 }               # fills visible 2 s late
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ENDPOINTS, type EndpointId } from '../../core/endpoints.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Footprint } from '../../core/footprint.ts';
import { hashUnit, mulberry32, type Rng } from './rng.ts';

const ENDPOINT_IDS = Object.keys(ENDPOINTS) as [EndpointId, ...EndpointId[]];
const endpointList = z.array(z.enum(ENDPOINT_IDS)).min(1).optional();
const probability = z.number().min(0).max(1);
const ms = z.number().int().nonnegative();

export const FAULT_KINDS = [
  'latency',
  'responseLost',
  'resetBeforeProcessing',
  'serverError',
  'rateLimited',
  'staleHistory',
  'duplicateRows',
  'lateFills',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const latency = z
  .object({
    kind: z.literal('latency'),
    probability,
    endpoints: endpointList,
    ms: ms.optional(),
    minMs: ms.optional(),
    maxMs: ms.optional(),
  })
  .strict()
  .refine((f) => (f.ms !== undefined) !== (f.minMs !== undefined && f.maxMs !== undefined), {
    message: 'latency needs either `ms` (fixed) or both `minMs` and `maxMs` (uniform range)',
  })
  .refine((f) => f.minMs === undefined || f.maxMs === undefined || f.minMs <= f.maxMs, {
    message: 'minMs must be ≤ maxMs',
  });

const faultSchema = z.union([
  latency,
  z.object({ kind: z.literal('responseLost'), probability, endpoints: endpointList }).strict(),
  z.object({ kind: z.literal('resetBeforeProcessing'), probability, endpoints: endpointList }).strict(),
  z
    .object({
      kind: z.literal('serverError'),
      probability,
      endpoints: endpointList,
      status: z.number().int().min(500).max(599).default(503),
      /** true: the request is executed and then answered with the 5xx (outcome unknown to the client). */
      afterProcessing: z.boolean().default(false),
    })
    .strict(),
  z.object({ kind: z.literal('rateLimited'), probability, endpoints: endpointList }).strict(),
  z
    .object({
      kind: z.literal('staleHistory'),
      probability,
      endpoints: z
        .array(z.enum(['history', 'historyPlan', 'currentPlan']))
        .min(1)
        .optional(),
      lagMs: ms,
    })
    .strict(),
  z
    .object({
      kind: z.literal('duplicateRows'),
      probability,
      endpoints: z
        .array(z.enum(['history', 'fills', 'historyPlan', 'currentPlan']))
        .min(1)
        .optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('lateFills'),
      probability,
      endpoints: z.array(z.literal('fills')).min(1).optional(),
      delayMs: ms,
    })
    .strict(),
]);
export type Fault = z.infer<typeof faultSchema>;

export const faultProfileSchema = z
  .object({
    /** Used when no --seed is given. */
    seed: z.number().int().optional(),
    faults: z.array(faultSchema),
  })
  .strict();
export type FaultProfile = z.infer<typeof faultProfileSchema>;

export const NO_FAULTS: FaultProfile = { faults: [] };

const DEFAULT_ENDPOINTS: Readonly<Record<FaultKind, readonly EndpointId[]>> = {
  latency: ENDPOINT_IDS,
  responseLost: ENDPOINT_IDS,
  resetBeforeProcessing: ENDPOINT_IDS,
  serverError: ENDPOINT_IDS,
  rateLimited: ENDPOINT_IDS,
  staleHistory: ['history'],
  duplicateRows: ['history', 'fills'],
  lateFills: ['fills'],
};

/** Parses a profile text (YAML, which includes JSON); `source` names the file in errors. */
export function parseFaultProfile(text: string, source: string): FaultProfile {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new ConfigError(`not valid YAML/JSON: ${e instanceof Error ? e.message : String(e)}`, source);
  }
  const r = faultProfileSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first && first.path.length > 0 ? `${source}: ${first.path.join('.')}` : source;
    throw new ConfigError(first?.message ?? 'invalid fault profile', where);
  }
  return r.data;
}

export async function loadFaultProfile(path: string): Promise<FaultProfile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `cannot read the fault profile: ${e instanceof Error ? e.message : String(e)}`,
      path,
    );
  }
  return parseFaultProfile(text, path);
}

/** What fires for one request. `pick` is a die for choosing a row to duplicate. */
export interface RequestFaults {
  readonly latencyMs: number;
  readonly resetBeforeProcessing: boolean;
  readonly rateLimited: boolean;
  readonly serverError?: { readonly status: number; readonly afterProcessing: boolean };
  readonly responseLost: boolean;
  readonly staleLagMs?: number;
  readonly duplicateRows: boolean;
  readonly pick: number;
}

export const NO_REQUEST_FAULTS: RequestFaults = {
  latencyMs: 0,
  resetBeforeProcessing: false,
  rateLimited: false,
  responseLost: false,
  duplicateRows: false,
  pick: 0,
};

/** Hidden late fills kept before the first sweep drops those that show by then (see #lateHidden). */
export const LATE_SWEEP_MIN = 1_024;

export class FaultInjector {
  readonly #faults: readonly Fault[];
  readonly #rng: Rng;
  readonly #seed: number;
  readonly #counts = new Map<FaultKind, number>(FAULT_KINDS.map((k) => [k, 0]));
  /**
   * Late fills hidden so far, each with the time it shows: counted once while hidden. A fill that
   * shows never hides again (the venue's time only moves forward), so it is dropped when it is seen
   * shown, or by a sweep once the map has doubled: the map holds the fills still hidden, at most
   * twice over (LATE_SWEEP_MIN at least).
   */
  readonly #lateHidden = new Map<string, number>();
  #sweepAt = LATE_SWEEP_MIN;

  constructor(profile: FaultProfile, seed: number) {
    this.#faults = profile.faults;
    this.#seed = seed >>> 0;
    this.#rng = mulberry32(this.#seed ^ 0x5eed);
  }

  get enabled(): boolean {
    return this.#faults.length > 0;
  }

  /**
   * Rolls the dice for one request. Every fault that applies to the endpoint draws exactly once
   * (twice for a latency range), in profile order, whether or not an earlier one fired: the draw
   * sequence depends only on the request sequence.
   */
  decide(endpoint: EndpointId): RequestFaults {
    if (this.#faults.length === 0) return NO_REQUEST_FAULTS;
    let latencyMs = 0;
    let resetBeforeProcessing = false;
    let rateLimited = false;
    let serverError: RequestFaults['serverError'];
    let responseLost = false;
    let staleLagMs: number | undefined;
    let duplicateRows = false;
    for (const f of this.#faults) {
      const endpoints: readonly string[] = f.endpoints ?? DEFAULT_ENDPOINTS[f.kind];
      if (!endpoints.includes(endpoint)) continue;
      const fires = this.#rng.next() < f.probability;
      switch (f.kind) {
        case 'latency': {
          const span = f.ms !== undefined ? 0 : (f.maxMs ?? 0) - (f.minMs ?? 0);
          const extra = f.ms !== undefined ? 0 : Math.floor(this.#rng.next() * (span + 1));
          if (fires) latencyMs += f.ms ?? (f.minMs ?? 0) + extra;
          break;
        }
        case 'responseLost':
          responseLost ||= fires;
          break;
        case 'resetBeforeProcessing':
          resetBeforeProcessing ||= fires;
          break;
        case 'serverError':
          if (fires && !serverError) serverError = { status: f.status, afterProcessing: f.afterProcessing };
          break;
        case 'rateLimited':
          rateLimited ||= fires;
          break;
        case 'staleHistory':
          if (fires && staleLagMs === undefined) staleLagMs = f.lagMs;
          break;
        case 'duplicateRows':
          duplicateRows ||= fires;
          break;
        case 'lateFills':
          break;
      }
    }
    return {
      latencyMs,
      resetBeforeProcessing,
      rateLimited,
      ...(serverError ? { serverError } : {}),
      responseLost,
      ...(staleLagMs !== undefined ? { staleLagMs } : {}),
      duplicateRows,
      pick: this.#rng.next(),
    };
  }

  /** Records that a decided fault was actually injected. */
  count(kind: FaultKind): void {
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
  }

  /**
   * Late fills: whether fill `tradeId` created at `createdTime` is visible at `now`. A fill chosen by
   * the hash stays hidden for the fault's delay; each hidden fill is counted once.
   */
  fillVisible(tradeId: string, createdTime: number, now: number): boolean {
    for (const f of this.#faults) {
      if (f.kind !== 'lateFills') continue;
      if (hashUnit(this.#seed, `late:${tradeId}`) >= f.probability) continue;
      const showsAt = createdTime + f.delayMs;
      if (now >= showsAt) {
        this.#lateHidden.delete(tradeId);
        return true;
      }
      if (!this.#lateHidden.has(tradeId)) {
        this.#lateHidden.set(tradeId, showsAt);
        this.count('lateFills');
        if (this.#lateHidden.size >= this.#sweepAt) this.#sweep(now);
      }
      return false;
    }
    return true;
  }

  /** Drops the hidden fills that show by `now`; the next sweep waits until the map has doubled. */
  #sweep(now: number): void {
    for (const [tradeId, showsAt] of this.#lateHidden) if (showsAt <= now) this.#lateHidden.delete(tradeId);
    this.#sweepAt = Math.max(LATE_SWEEP_MIN, 2 * this.#lateHidden.size);
  }

  /** Late fills hidden now (or shown since the last sweep, never asked for again): core/footprint.ts. */
  footprint(): Footprint {
    return { lateHidden: this.#lateHidden.size };
  }

  counts(): Record<FaultKind, number> {
    return Object.fromEntries(FAULT_KINDS.map((k) => [k, this.#counts.get(k) ?? 0])) as Record<
      FaultKind,
      number
    >;
  }
}
