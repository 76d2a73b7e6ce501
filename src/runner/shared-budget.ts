// `budget.shared` in a run: joins the account's shared weight budget in Redis before the engine
// exists (a run that cannot reach Redis at start does not start), and hands the engine its gate.
import type { Config } from '../config/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Timers } from '../execution/timers.ts';
import { noopSharedBudgetMetrics, promSharedBudgetMetrics } from '../execution/shared/metrics.ts';
import type { SharedBudget } from '../execution/shared/shared-budget.ts';
import type { Metrics, PromMetrics } from '../obs/metrics.ts';
import type { Logger } from 'pino';
import { engineOptions } from './options.ts';

const hasRegistry = (m: Metrics): m is PromMetrics => 'registry' in m;

/** The joined shared budget, or undefined when the config has no `budget.shared`. */
export async function joinSharedBudget(
  config: Config,
  deps: { readonly clock: Clock; readonly timers: Timers; readonly log: Logger; readonly metrics: Metrics },
): Promise<SharedBudget | undefined> {
  const shared = config.budget.shared;
  if (shared === undefined) return undefined;
  // Loaded here only: a run without budget.shared never loads the Redis client.
  const { connectSharedBudget } = await import('../execution/shared/connect.ts');
  const budget = connectSharedBudget(shared, {
    budget: engineOptions(config).budget ?? {},
    clock: deps.clock,
    timers: deps.timers,
    log: deps.log,
    metrics: hasRegistry(deps.metrics)
      ? promSharedBudgetMetrics(deps.metrics.registry)
      : noopSharedBudgetMetrics,
  });
  try {
    await budget.start();
  } catch (e) {
    await budget.stop();
    throw e;
  }
  return budget;
}
