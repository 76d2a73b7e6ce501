// The executor benchmark (issue #5): saturation under a flood of intents, then tick-to-request
// latency without contention. The headline figures are those of bench/results.json `executor`; the
// detail of each part is kept beside them.
import { benchSaturation, type SaturationOptions, type SaturationResult } from './executor-flood.ts';
import { benchTickLatency, type LatencyOptions, type LatencyResult } from './executor-latency.ts';

export interface ExecutorBenchOptions {
  readonly saturation?: SaturationOptions;
  readonly latency?: LatencyOptions;
}

export interface ExecutorBenchResult {
  /** Target ≥ 0.95. */
  readonly budgetUtilisation: number;
  /** Target 0. */
  readonly responses429: number;
  /** Target ≥ 19. */
  readonly meanOrdersPerBatch: number;
  readonly tickToRequestP50Ms: number;
  /** Target ≤ 1. */
  readonly tickToRequestP99Ms: number;
  /** p99 of the ticks during which the process was not preempted (diagnostic; see executor-latency.ts). */
  readonly tickToRequestP99NotPreemptedMs: number;
  readonly saturation: SaturationResult;
  readonly latency: LatencyResult;
}

export async function benchExecutor(o: ExecutorBenchOptions = {}): Promise<ExecutorBenchResult> {
  // Latency first, on a fresh heap; the flood leaves a lot of garbage behind.
  const latency = await benchTickLatency(o.latency);
  const saturation = await benchSaturation(o.saturation);
  return {
    budgetUtilisation: saturation.budgetUtilisation,
    responses429: saturation.responses429,
    meanOrdersPerBatch: saturation.meanOrdersPerBatch,
    tickToRequestP50Ms: latency.p50Ms,
    tickToRequestP99Ms: latency.p99Ms,
    tickToRequestP99NotPreemptedMs: latency.notPreempted.p99Ms,
    saturation,
    latency,
  };
}
