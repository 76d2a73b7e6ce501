// Executors flooding one simulator over HTTP, each with its own budget: shared through Redis (its
// own connection per executor, as separate processes would have) or in-process only. Wall time and
// real timers throughout: the shared budget is for live runs.
import { Writable } from 'node:stream';
import pino from 'pino';
import { Redis } from 'ioredis';
import { asyncScheduler } from 'rxjs';
import { ENDPOINTS, type EndpointId } from '../../../src/core/endpoints.ts';
import { RateLimitedError } from '../../../src/core/errors.ts';
import { createBudget, type BudgetConfig } from '../../../src/execution/budget.ts';
import { Executor, type ExecutorPort } from '../../../src/execution/executor.ts';
import { noopSharedBudgetMetrics, type SharedBudgetMetrics } from '../../../src/execution/shared/metrics.ts';
import { SharedBudget, type SharedBudgetOptions } from '../../../src/execution/shared/shared-budget.ts';
import { schedulerTimers } from '../../../src/execution/timers.ts';
import { signed, startSim } from '../../exchange/sim/helpers.ts';

export const wall = { now: (): number => Date.now() };

/** Venue limits of the flood tests: a 1 s window so that a run takes seconds, not minutes. */
export const VENUE = {
  windowMs: 1_000,
  ipWeightPerWindow: 200,
  uidWeightPerWindow: 200,
  orderRequestsPerSecond: 10,
};
export const BUDGET: Partial<BudgetConfig> = {
  windowMs: VENUE.windowMs,
  ipWeightPerWindow: VENUE.ipWeightPerWindow,
  uidWeightPerWindow: VENUE.uidWeightPerWindow,
  orderRequestsPerSecond: VENUE.orderRequestsPerSecond,
  safetyMargin: 0.9,
  // Two cores shared by the simulator, three executors and the test runner: the time between a grant
  // and the request's arrival at the venue varies by far more than on a server (default 50 ms).
  guardMs: 400,
  // A 429 in the unshared control run should not stall it for long.
  backoffMs: 200,
  maxBackoffMs: 1_000,
};

/** One request as it left: when, its weight, and whether its executor was on the shared budget. */
export interface Sent {
  readonly member: number;
  readonly t: number;
  readonly ip: number;
  readonly uid: number;
  readonly mode: string;
}

export interface Member {
  readonly ex: Executor;
  readonly shared: SharedBudget | undefined;
  readonly logs: string[];
  readonly fallbacks: () => number;
  /** The most IP weight Redis reported in its window after a reservation, and its limit then. */
  readonly peakShared: () => { used: number; limit: number };
  /** Requests refused only to leave the cancel reserve to a waiting cancel. */
  readonly heldForCancel: () => number;
}

const noPort: ExecutorPort = {
  placeOrder: () => Promise.reject(new Error('not used')),
  placeBatch: () => Promise.reject(new Error('not used')),
  cancelOrder: () => Promise.reject(new Error('not used')),
  placePlan: () => Promise.reject(new Error('not used')),
  cancelPlan: () => Promise.reject(new Error('not used')),
};

function capture(lines: string[]): pino.Logger {
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return pino({ level: 'info' }, stream);
}

export async function member(
  index: number,
  redisUrl: string | undefined,
  options: SharedBudgetOptions & { timeoutMs: number },
): Promise<Member> {
  const logs: string[] = [];
  const log = capture(logs);
  let fallbacks = 0;
  let held = 0;
  let peak = { used: 0, limit: 0 };
  const metrics: SharedBudgetMetrics = {
    ...noopSharedBudgetMetrics,
    fallback: () => void fallbacks++,
    heldForCancel: () => void held++,
    used: (u) => {
      if (u.ip > peak.used) peak = { used: u.ip, limit: u.ipLimit };
    },
  };
  const timers = schedulerTimers(asyncScheduler);
  let shared: SharedBudget | undefined;
  if (redisUrl !== undefined) {
    const redis = new Redis(redisUrl, {
      lazyConnect: true,
      commandTimeout: options.timeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 50,
    });
    redis.on('error', () => undefined);
    shared = new SharedBudget({
      redis,
      account: 'flood',
      member: `m${index}`,
      budget: BUDGET,
      options,
      clock: wall,
      timers,
      log,
      metrics,
    });
    await shared.start();
  }
  const ex = new Executor({
    port: noPort,
    clock: wall,
    timers,
    budget: createBudget(BUDGET),
    ...(shared !== undefined ? { budgetGate: shared } : {}),
    onOrderEvent: () => undefined,
    onFatal: (e) => {
      throw e;
    },
    log,
    options: { maxInFlight: 8, retryDelayMs: 100, maxAttempts: 3 },
  });
  return {
    ex,
    shared,
    logs,
    fallbacks: () => fallbacks,
    peakShared: () => peak,
    heldForCancel: () => held,
  };
}

/** Sends `n` reads of `endpoint` through the executor to the simulator; resolves when all settled. */
export async function flood(
  m: Member,
  index: number,
  simUrl: string,
  endpoint: EndpointId,
  n: number,
  sent: Sent[],
): Promise<{ ok: number; failed: number }> {
  const e = ENDPOINTS[endpoint];
  const run = async (): Promise<void> => {
    sent.push({
      member: index,
      t: Date.now(),
      ip: e.ipWeight,
      uid: e.uidWeight,
      mode: m.shared?.mode ?? 'alone',
    });
    const r = await signed(simUrl, {
      method: 'GET',
      path: e.path,
      query: 'symbol=cmt_btcusdt',
      ts: Date.now(),
    });
    if (r.status === 429) throw new RateLimitedError('429', endpoint, 0);
    if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${r.text}`);
  };
  const results = await Promise.allSettled(Array.from({ length: n }, () => m.ex.read(endpoint, run)));
  return {
    ok: results.filter((r) => r.status === 'fulfilled').length,
    failed: results.filter((r) => r.status === 'rejected').length,
  };
}

/** The most weight sent in any window of `windowMs` (by send time), overall or for one member. */
export function peakWindow(
  sent: readonly Sent[],
  windowMs: number,
  filter: (s: Sent) => boolean = () => true,
): number {
  const xs = sent.filter(filter).sort((a, b) => a.t - b.t);
  let peak = 0;
  let sum = 0;
  let lo = 0;
  for (const s of xs) {
    sum += s.ip;
    while ((xs[lo]?.t ?? Infinity) <= s.t - windowMs) sum -= xs[lo++]?.ip ?? 0;
    peak = Math.max(peak, sum);
  }
  return peak;
}

/** A flood's simulator, its members and what they sent. */
export interface Flood {
  readonly sim: Awaited<ReturnType<typeof startSim>>;
  readonly members: readonly Member[];
  readonly sent: Sent[];
}

/**
 * Starts the simulator (VENUE limits, wall clock) and `count` members on `redisUrl` (undefined: each
 * with its own budget), runs `fn`, then stops the members and the simulator whatever happened.
 */
export async function withFlood<T>(
  count: number,
  redisUrl: string | undefined,
  options: SharedBudgetOptions & { timeoutMs: number },
  fn: (f: Flood) => Promise<T>,
): Promise<T> {
  const sim = await startSim({ serverClock: wall, limits: VENUE });
  const members: Member[] = [];
  try {
    for (let i = 0; i < count; i++) members.push(await member(i, redisUrl, options));
    return await fn({ sim, members, sent: [] });
  } finally {
    for (const m of members) {
      m.ex.stop();
      await m.shared?.stop();
    }
    await sim.server.close();
  }
}
