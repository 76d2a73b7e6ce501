// The shared budget's metrics. Registered on the run's own Registry (obs/metrics.ts) when metrics are
// enabled; `noopSharedBudgetMetrics` otherwise (and in tests that do not look).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { SharedUsage } from './replies.ts';

export interface SharedBudgetMetrics {
  /** The shared windows as the last reply showed them (every process's use, not only ours). */
  used(u: SharedUsage): void;
  /** One reservation's round trip to Redis, in ms (granted or not). */
  reservation(ms: number): void;
  /** The process fell back to its share. */
  fallback(): void;
  /** 1 on the shared budget, 0 in fallback. */
  shared(on: boolean): void;
  members(n: number): void;
  /** Whether a cancel (of any process) waited for room, as the last reservation's reply showed. */
  cancelWaiting(on: boolean): void;
  /** A non-cancel request of this process was refused only to leave the reserve to a waiting cancel. */
  heldForCancel(): void;
}

export const noopSharedBudgetMetrics: SharedBudgetMetrics = {
  used: () => undefined,
  reservation: () => undefined,
  fallback: () => undefined,
  shared: () => undefined,
  members: () => undefined,
  cancelWaiting: () => undefined,
  heldForCancel: () => undefined,
};

export function promSharedBudgetMetrics(registry: Registry): SharedBudgetMetrics {
  const registers = [registry];
  const used = new Gauge({
    name: 'capibot_shared_budget_used',
    help: 'Weight (or requests) used in the shared window by every process of the account, per pool',
    labelNames: ['pool'],
    registers,
  });
  const limit = new Gauge({
    name: 'capibot_shared_budget_limit',
    help: 'The shared limit per pool (safety margin and 429 shrink applied)',
    labelNames: ['pool'],
    registers,
  });
  const latency = new Histogram({
    name: 'capibot_shared_budget_reservation_seconds',
    help: 'Round trip of one reservation in Redis',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers,
  });
  const fallbacks = new Counter({
    name: 'capibot_shared_budget_fallbacks_total',
    help: 'Times this process lost Redis and fell back to its 1/N share',
    registers,
  });
  const mode = new Gauge({
    name: 'capibot_shared_budget_shared',
    help: '1 while this process draws from the shared budget, 0 while it spends its fallback share',
    registers,
  });
  const members = new Gauge({
    name: 'capibot_shared_budget_members',
    help: 'Processes sharing the budget, as Redis last counted them',
    registers,
  });
  const cancelWaiting = new Gauge({
    name: 'capibot_shared_budget_cancel_waiting',
    help: 'Whether a cancel of any process waits for room (non-cancels then leave the cancel reserve), as the last reservation saw it',
    registers,
  });
  const heldForCancel = new Counter({
    name: 'capibot_shared_budget_held_for_cancel_total',
    help: "Requests of this process refused only because they left the cancel reserve to another cancel's wait",
    registers,
  });
  return {
    used(u) {
      used.set({ pool: 'ip' }, u.ip);
      used.set({ pool: 'uid' }, u.uid);
      used.set({ pool: 'orders' }, u.orders);
      limit.set({ pool: 'ip' }, u.ipLimit);
      limit.set({ pool: 'uid' }, u.uidLimit);
      limit.set({ pool: 'orders' }, u.ordersLimit);
    },
    reservation: (ms) => latency.observe(ms / 1000),
    fallback: () => fallbacks.inc(),
    shared: (on) => mode.set(on ? 1 : 0),
    members: (n) => members.set(n),
    cancelWaiting: (on) => cancelWaiting.set(on ? 1 : 0),
    heldForCancel: () => heldForCancel.inc(),
  };
}
