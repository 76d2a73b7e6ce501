// The operator channel between `capibot kill` / `capibot status` and a running `capibot run`, through
// the store's meta table (the one thing both processes share, also across containers on one volume).
//
//   control.listening   written by the runner at start: {pid, signal, since}. Its presence says the
//                       runner reads kill requests (an older runner without it would die of SIGUSR2,
//                       whose default action terminates a process, so nothing is signalled without it).
//   control.killRequest written by `capibot kill`: {id, at, pid, reason}.
//   control.killAck     written by the runner once it engaged the kill switch for request `id`:
//                       {id, at, pid, tradingState, canceling}. A request whose id equals the ack's id
//                       is handled; any other request is pending.
//   runner.snapshot     written by the runner every few seconds: trading state, weight budget use, queue
//                       depth and account PnL marked at the latest tickers (the store alone has no prices).
//
// The runner polls `control.killRequest` (so the channel works without signals, e.g. from another
// container) and `capibot kill` also sends SIGUSR2 to the lease holder on the same host so that the
// runner reacts at once. Every value is JSON, parsed with zod: the meta table is input like any other.
import { z } from 'zod';

export const CONTROL_META = {
  listening: 'control.listening',
  killRequest: 'control.killRequest',
  killAck: 'control.killAck',
  snapshot: 'runner.snapshot',
} as const;

/** The signal that makes a runner read its kill requests at once. */
export const CONTROL_SIGNAL = 'SIGUSR2';

const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/);
const epochMs = z.number().int().nonnegative();
const tradingState = z.enum(['ACTIVE', 'REDUCING', 'HALTED']);

export const ListeningSchema = z.object({
  pid: z.number().int().positive(),
  signal: z.string(),
  since: epochMs,
});
export type Listening = z.infer<typeof ListeningSchema>;

export const KillRequestSchema = z.object({
  id: z.string().min(1).max(100),
  at: epochMs,
  pid: z.number().int().nonnegative(),
  reason: z.string().max(500),
});
export type KillRequest = z.infer<typeof KillRequestSchema>;

export const KillAckSchema = z.object({
  id: z.string().min(1).max(100),
  at: epochMs,
  pid: z.number().int().nonnegative(),
  tradingState,
  /** Open orders when the kill switch was engaged (their cancels were queued). */
  canceling: z.number().int().nonnegative(),
  /** How the request was handled: by the runner, or directly by `capibot kill` (no runner). */
  by: z.enum(['runner', 'direct']),
});
export type KillAck = z.infer<typeof KillAckSchema>;

const pool = z.object({
  used: z.number().nonnegative(),
  limit: z.number().nonnegative(),
  remaining: z.number(),
});

export const RunnerSnapshotSchema = z.object({
  /** Wall-clock time of the snapshot (epoch ms). */
  at: epochMs,
  pid: z.number().int().nonnegative(),
  tradingState,
  budget: z.object({ ip: pool, uid: pool, orderRate: pool, backoffMs: z.number().nonnegative() }),
  queue: z.object({
    staged: z.number().int().nonnegative(),
    placements: z.number().int().nonnegative(),
    cancels: z.number().int().nonnegative(),
    reads: z.number().int().nonnegative(),
    inFlight: z.number().int().nonnegative(),
    retrying: z.number().int().nonnegative(),
  }),
  /** Account PnL marked at the latest tickers (decimal strings). */
  pnl: z.object({
    realized: decimalString,
    unrealized: decimalString,
    fees: decimalString,
    net: decimalString,
  }),
  openOrders: z.number().int().nonnegative(),
});
export type RunnerSnapshot = z.infer<typeof RunnerSnapshotSchema>;

/** Parses a meta value with `schema`; undefined when absent or malformed (never throws). */
export function readMetaJson<T>(
  getMeta: (key: string) => string | undefined,
  key: string,
  schema: z.ZodType<T>,
): T | undefined {
  const text = getMeta(key);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The kill request not yet acknowledged, if any. */
export function pendingKillRequest(getMeta: (key: string) => string | undefined): KillRequest | undefined {
  const req = readMetaJson(getMeta, CONTROL_META.killRequest, KillRequestSchema);
  if (req === undefined) return undefined;
  const ack = readMetaJson(getMeta, CONTROL_META.killAck, KillAckSchema);
  return ack?.id === req.id ? undefined : req;
}
